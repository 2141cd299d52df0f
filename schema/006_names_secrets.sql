-- 006_names_secrets.sql - names print as themselves; passwords are not
-- kept where they are shown.
--
-- Names (hosts, kernels, patches, jobs, plans) refuse control characters:
-- C0 (U+0001..U+001F), DEL and C1 (U+0080..U+009F).  A name holding ESC,
-- BEL or a newline printed terminal escapes or fake rows in `host list`;
-- the farm refuses them at input (parse.h check_name), and these CHECKs
-- keep any other writer out.  Rows that already hold one get it replaced
-- by '?' and their id appended ("bad?name#12"), so the names stay unique
-- and nothing is lost.
--
-- A sysbench pg_conninfo in runs.params and comparisons.params (what
-- pages, CSV/JSON and `job show` print) gets its password written as ***,
-- as the farm now stores it (common/conninfo.c); the plan's text keeps it
-- (the agent needs it) and is masked when shown.

UPDATE hosts SET name = left(regexp_replace(name, '[\x01-\x1f\x7f\u0080-\u009f]', '?', 'g'), 100) || '#' || id
    WHERE name ~ '[\x01-\x1f\x7f\u0080-\u009f]';
UPDATE kernels SET name = left(regexp_replace(name, '[\x01-\x1f\x7f\u0080-\u009f]', '?', 'g'), 180) || '#' || id
    WHERE name ~ '[\x01-\x1f\x7f\u0080-\u009f]';
UPDATE patches SET name = left(regexp_replace(name, '[\x01-\x1f\x7f\u0080-\u009f]', '?', 'g'), 480) || '#' || id
    WHERE name ~ '[\x01-\x1f\x7f\u0080-\u009f]';
UPDATE jobs SET name = left(regexp_replace(name, '[\x01-\x1f\x7f\u0080-\u009f]', '?', 'g'), 480) || '#' || id
    WHERE name ~ '[\x01-\x1f\x7f\u0080-\u009f]';
UPDATE plans SET name = regexp_replace(name, '[\x01-\x1f\x7f\u0080-\u009f]', '?', 'g')
    WHERE name ~ '[\x01-\x1f\x7f\u0080-\u009f]';

ALTER TABLE hosts ADD CONSTRAINT hosts_name_printable
    CHECK (name !~ '[\x01-\x1f\x7f\u0080-\u009f]');
ALTER TABLE kernels ADD CONSTRAINT kernels_name_printable
    CHECK (name !~ '[\x01-\x1f\x7f\u0080-\u009f]');
ALTER TABLE patches ADD CONSTRAINT patches_name_printable
    CHECK (name !~ '[\x01-\x1f\x7f\u0080-\u009f]');
ALTER TABLE jobs ADD CONSTRAINT jobs_name_printable
    CHECK (name !~ '[\x01-\x1f\x7f\u0080-\u009f]');
ALTER TABLE plans ADD CONSTRAINT plans_name_printable
    CHECK (name !~ '[\x01-\x1f\x7f\u0080-\u009f]');

-- password=VALUE: a value in single quotes (\' and \\ inside), or up to
-- white space, as libpq reads it.
CREATE FUNCTION pg_temp.masked(p jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p->>'pg_conninfo' ~* 'password\s*=' THEN
        jsonb_set(p, '{pg_conninfo}', to_jsonb(regexp_replace(p->>'pg_conninfo',
            '(password\s*=\s*)(''([^''\\]|\\.)*''|\S+)', '\1***', 'gi')))
    ELSE p END
$$;

UPDATE runs SET params = pg_temp.masked(params)
    WHERE params->>'pg_conninfo' ~* 'password\s*=';
-- Two latest verdicts that differed only by a password become one key:
-- the newer stays the latest.
UPDATE comparisons SET is_latest = false WHERE id IN (
    SELECT id FROM (
        SELECT id, row_number() OVER (
            PARTITION BY base_kernel_id, new_kernel_id, host_id, workload,
                         pg_temp.masked(params), metric
            ORDER BY computed_at DESC, id DESC) AS n
        FROM comparisons WHERE is_latest) AS x
    WHERE n > 1);
UPDATE comparisons SET params = pg_temp.masked(params)
    WHERE params->>'pg_conninfo' ~* 'password\s*=';
