-- 004_kernels_boots.sql - what the build and boot phases record.
--
-- kernels: how to rebuild one (base ref, config spec), the uncompressed
-- vmlinux for direct boot beside the compressed image, the cache folder.
-- boots: one row per boot attempt of a host with a kernel, with the phase
-- timings (power-on to Linux, to the agent's beacon, to SSH, to ready),
-- the outcome, whom it blames, and the console log.

ALTER TABLE kernels
    ADD COLUMN base_ref     text,            -- git ref when base is a repository
    ADD COLUMN config_spec  text,            -- "tinyconfig+farm-base.config+..."
    ADD COLUMN vmlinux_path text,            -- uncompressed, for direct boot
    ADD COLUMN initrd_path  text,            -- an initramfs the kernel needs, if any
    ADD COLUMN build_dir    text,            -- CACHE/builds/KEY
    ADD COLUMN build_steps  integer CHECK (build_steps >= 0);

CREATE TABLE boots (
    id              bigserial PRIMARY KEY,
    job_id          bigint REFERENCES jobs(id) ON DELETE CASCADE,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    kernel_id       bigint REFERENCES kernels(id) ON DELETE SET NULL,
    method          text NOT NULL CHECK (method IN ('libvirt', 'ipmi-pxe', 'ipmi-direct', 'kexec')),
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    -- milliseconds from power-on
    linux_ms        bigint CHECK (linux_ms >= 0),
    beacon_ms       bigint CHECK (beacon_ms >= 0),
    ssh_ms          bigint CHECK (ssh_ms >= 0),
    ready_ms        bigint CHECK (ready_ms >= 0),
    outcome         text NOT NULL DEFAULT 'running'
                    CHECK (outcome IN ('running', 'ready', 'kernel-failed', 'infra-failed', 'timeout')),
    blame           text CHECK (blame IN ('kernel', 'host', 'none')),
    reason          text,
    release         text,                    -- uname -r the host reported
    console_events  text,                    -- the scanner's summary
    console_log     text
);
CREATE INDEX boots_host ON boots (host_id, started_at);
CREATE INDEX boots_job ON boots (job_id);

-- This farm's own name for what it creates outside the database: libvirt
-- domains are farm-<id>-<job>, so two farms (or two test suites) sharing a
-- libvirt daemon never destroy each other's guests as orphans.
CREATE TABLE farm_identity (
    id              text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{8}$'),
    created_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO farm_identity (id)
    VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 8));
