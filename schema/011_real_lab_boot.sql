-- 011_real_lab_boot.sql - what the real-lab boot path records: how a
-- host's BMC takes `chassis bootdev pxe`, how a boot was made (kexec or a
-- power cycle, and why a kexec fell back), expected panics, host checks.
--
-- hosts.bmc_bootdev: what the farm sends before an IPMI power-on.
--   'pxe'          `chassis bootdev pxe`; a refusal fails the boot (the BMC's
--                  fault: the host is blamed), since a machine that boots
--                  its disk instead would run the wrong kernel;
--   'pxe-efi'      `chassis bootdev pxe options=efiboot` (UEFI machines);
--   'unsupported'  the BMC is known to refuse it (OpenIPMI's ipmi_sim without
--                  a chassis_control program): it is still sent, and a
--                  refusal is only a warning -- the machine's own boot order
--                  must put the network first.
-- boots.fallback: why a kexec boot was given up for a power cycle (NULL
-- when none was tried or it worked); the boots row of the power cycle
-- carries it, so the report can tell "kexec failed" from "no kexec".
-- boots.outcome 'expected-panic' and runs.status 'expected-panic': a plan
-- that declares `expect: panic` (or oops) saw it; boots.expected is the
-- console line that matched.

ALTER TABLE hosts
    ADD COLUMN bmc_bootdev text NOT NULL DEFAULT 'pxe'
        CHECK (bmc_bootdev IN ('pxe', 'pxe-efi', 'unsupported'));

ALTER TABLE boots
    ADD COLUMN fallback text,
    ADD COLUMN expected text,
    DROP CONSTRAINT boots_outcome_check,
    ADD CONSTRAINT boots_outcome_check CHECK (outcome IN ('running', 'ready',
        'kernel-failed', 'infra-failed', 'timeout', 'expected-panic'));

ALTER TABLE runs
    DROP CONSTRAINT runs_status_check,
    ADD CONSTRAINT runs_status_check CHECK (status IN ('pending', 'running',
        'done', 'failed', 'aborted', 'imported', 'expected-panic'));
