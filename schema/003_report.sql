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

-- How the pages show a timestamp: UTC, to the second.
CREATE FUNCTION report_ts(t timestamptz) RETURNS text
    LANGUAGE sql STABLE AS
$$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') $$;

-- Params as the import format writes them: key=value;key=value, keys sorted.
CREATE FUNCTION report_params(p jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE AS
$$ SELECT coalesce((SELECT string_agg(e.key || '=' || e.value, ';' ORDER BY e.key)
                    FROM jsonb_each_text(p) e), '') $$;

-- The same with unsigned numbers zero-padded, so that sorting the text
-- sorts numbers as numbers (threads=2 before threads=16).
CREATE FUNCTION report_params_key(p jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE AS
$$ SELECT coalesce((SELECT string_agg(e.key || '=' ||
           CASE WHEN e.value ~ '^[0-9]+([.][0-9]*)?$'
                THEN lpad(split_part(e.value, '.', 1), 24, '0') || '.' || split_part(e.value, '.', 2)
                ELSE e.value END, ';' ORDER BY e.key)
                    FROM jsonb_each_text(p) e), '') $$;
