-- 018_kcidb.sql - answers exported to KernelCI's common database (issue
-- 35; doc/KCIDB.md).
--
-- One row per answered patch (PLM#) once `export kcidb` wrote it or
-- `--submit` (or `serve`, when [kcidb] url is set) sent it: the document
-- as sent, under which origin, and where the submission stands.  status:
-- 'written' (exported to a file only), 'pending' (to be submitted: a try
-- failed and next_try_at says when the next one is due), 'submitted'
-- (the endpoint took it: submission_id names it, its status is polled),
-- 'processed' (the endpoint says it is in the database: never sent
-- again), 'failed' (the endpoint says processing failed: retried at
-- next_try_at with a fresh document, never dropped).  tries counts the
-- POSTs, last_error says why the last try or poll failed.
CREATE TABLE kcidb_exports (
    patch_id        bigint PRIMARY KEY REFERENCES patches(id) ON DELETE CASCADE,
    origin          text NOT NULL CHECK (origin ~ '^[a-z0-9_]+$'),
    document        text NOT NULL CHECK (length(document) <= 64 * 1024 * 1024),
    status          text NOT NULL DEFAULT 'written'
                    CHECK (status IN ('written', 'pending', 'submitted',
                                      'processed', 'failed')),
    submission_id   text CHECK (length(submission_id) <= 500),
    tries           integer NOT NULL DEFAULT 0 CHECK (tries >= 0),
    last_error      text CHECK (length(last_error) <= 8192),
    exported_at     timestamptz NOT NULL DEFAULT now(),
    submitted_at    timestamptz,
    done_at         timestamptz,
    next_try_at     timestamptz
);
CREATE INDEX kcidb_exports_due ON kcidb_exports (next_try_at)
    WHERE status IN ('pending', 'submitted', 'failed');
