-- 005_queue.sql - what the queue needs beyond the model of 001.
--
-- A job carries its plan's host requirements as columns, so one claim
-- statement can match queued jobs against idle hosts without parsing YAML;
-- it also carries a label and how many runs its plan expands to (for
-- progress).  A job's phases are recorded per attempt (a requeued job runs
-- them again).  A run remembers where its agent keeps its results file, so
-- a controller that lost the connection can fetch it.

ALTER TABLE jobs
    ADD COLUMN name             text CHECK (length(name) <= 500),
    ADD COLUMN req_kinds        text[] NOT NULL DEFAULT '{}',
    ADD COLUMN req_min_sockets  integer NOT NULL DEFAULT 0 CHECK (req_min_sockets >= 0),
    ADD COLUMN req_min_cpus     integer NOT NULL DEFAULT 0 CHECK (req_min_cpus >= 0),
    ADD COLUMN req_min_memory_mb bigint NOT NULL DEFAULT 0 CHECK (req_min_memory_mb >= 0),
    ADD COLUMN req_tags         text[] NOT NULL DEFAULT '{}',
    ADD COLUMN nr_runs          integer CHECK (nr_runs >= 0),
    ADD COLUMN rerun_of         bigint REFERENCES jobs(id) ON DELETE SET NULL;

ALTER TABLE job_phases
    ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1);

ALTER TABLE runs
    ADD COLUMN results_file text,
    ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
    ADD COLUMN iterations integer CHECK (iterations >= 1),
    ADD COLUMN warmup integer CHECK (warmup >= 0);

-- Wake controllers when a host comes back (its lease ends), as for jobs.
CREATE FUNCTION schedfarm_notify_host() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state = 'idle' AND OLD.state <> 'idle' THEN
        PERFORM pg_notify('schedfarm_jobs', 'host ' || NEW.id::text);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER hosts_notify AFTER UPDATE OF state ON hosts
    FOR EACH ROW EXECUTE FUNCTION schedfarm_notify_host();
