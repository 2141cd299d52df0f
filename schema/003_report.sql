-- 003_report.sql - what `schedfarm report` wrote, so the next report
-- rewrites only the pages whose data changed.
--
-- One row per page per output folder: the fingerprint (digest) of the data
-- and templates the page was written from.  A page whose digest still
-- matches, and whose file is still there, is left alone.

CREATE TABLE report_pages (
    out_dir         text NOT NULL CHECK (out_dir LIKE '/%'),  -- absolute folder
    page            text NOT NULL CHECK (page ~ '^[a-z0-9][a-z0-9.-]*$'),
    digest          text NOT NULL CHECK (digest ~ '^[0-9a-f]{16}$'),
    written_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (out_dir, page)
);
