-- 019_lists.sql - mailing lists the farm follows (issue 34; doc/LISTS.md).
--
-- A list is a public-inbox archive (an http(s) URL or a local folder) and
-- its policy.  The farm mirrors each epoch of the archive with git and
-- keeps, per (list, epoch), the last commit it has read (list_cursors):
-- a poll reads only the commits after it, so a restart reads nothing
-- twice.  Every message read is one list_messages row, whatever it was
-- (a patch, not a patch, unreadable with the reason), keyed by its
-- Message-ID, which is never read again.  Patches are grouped into
-- list_series by their cover letter (or 1/n): the series is complete,
-- and queued, when all n patches have arrived.
CREATE TABLE lists (
    id               bigserial PRIMARY KEY,
    name             text NOT NULL UNIQUE
                     CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    inbox            text NOT NULL CHECK (length(inbox) BETWEEN 1 AND 4096),
    -- The policy.  path_globs: a patch must touch a path matching one
    -- (none: any path); subject_prefixes: the subject's [...] must hold
    -- one (none: any); base_map: 'GLOB=BASE' entries, the base of a
    -- series without a usable base-commit trailer.
    path_globs       text[] NOT NULL DEFAULT '{}',
    subject_prefixes text[] NOT NULL DEFAULT '{}',
    base_map         text[] NOT NULL DEFAULT '{}',
    base_repo        text CHECK (length(base_repo) <= 4096),
    -- What a complete series is queued with: the plan file and a host
    -- (NULL: any host the plan allows).
    plan_path        text CHECK (length(plan_path) <= 4096),
    host             text CHECK (length(host) <= 128),
    -- Start from the archive's end: the first poll sets each epoch's
    -- cursor to its newest commit and reads nothing older.
    from_now         boolean NOT NULL DEFAULT false,
    mail_improvements boolean NOT NULL DEFAULT false,
    dry_run_mbox     text CHECK (length(dry_run_mbox) <= 4096),
    mails_per_hour   integer NOT NULL DEFAULT 10 CHECK (mails_per_hour >= 0),
    series_wait_s    integer NOT NULL DEFAULT 86400 CHECK (series_wait_s > 0),
    created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE list_cursors (
    list_id    bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    epoch      integer NOT NULL CHECK (epoch >= 0),
    last_commit text NOT NULL CHECK (last_commit ~ '^[0-9a-f]{40,64}$'),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (list_id, epoch)
);

CREATE TABLE list_series (
    id               bigserial PRIMARY KEY,
    list_id          bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    -- The Message-ID of the cover letter, or of 1/n (or of the patch
    -- itself for a single patch).
    cover_message_id text NOT NULL CHECK (length(cover_message_id) <= 998),
    author           text NOT NULL CHECK (length(author) <= 998),
    subject          text NOT NULL CHECK (length(subject) <= 998),
    version          integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    n_expected       integer NOT NULL CHECK (n_expected BETWEEN 1 AND 1000),
    n_arrived        integer NOT NULL DEFAULT 0 CHECK (n_arrived >= 0),
    state            text NOT NULL DEFAULT 'open'
                     CHECK (state IN ('open', 'complete', 'filtered',
                                      'incomplete', 'queued', 'no-base',
                                      'superseded')),
    note             text CHECK (length(note) <= 8192),
    -- Where it was queued: its base, how the base was chosen
    -- ('base-commit' or 'path map'), its submission (PLM#).
    base             text CHECK (length(base) <= 500),
    base_method      text CHECK (base_method IN ('base-commit', 'path map')),
    patch_id         bigint REFERENCES patches(id) ON DELETE SET NULL,
    -- The newer version of the same series (same list, author and
    -- subject without the version) that cancelled this one's queued jobs.
    superseded_by    bigint REFERENCES list_series(id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (list_id, cover_message_id)
);

CREATE TABLE list_messages (
    id          bigserial PRIMARY KEY,
    message_id  text NOT NULL UNIQUE CHECK (length(message_id) <= 998),
    list_id     bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    epoch       integer NOT NULL CHECK (epoch >= 0),
    git_commit  text NOT NULL CHECK (git_commit ~ '^[0-9a-f]{40,64}$'),
    state       text NOT NULL
                CHECK (state IN ('patch', 'not-a-patch', 'unreadable')),
    reason      text NOT NULL DEFAULT '' CHECK (length(reason) <= 1024),
    subject     text NOT NULL DEFAULT '' CHECK (length(subject) <= 998),
    author      text NOT NULL DEFAULT '' CHECK (length(author) <= 998),
    series_id   bigint REFERENCES list_series(id) ON DELETE SET NULL,
    part        integer NOT NULL DEFAULT 0 CHECK (part >= 0),
    body        text,
    seen_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX list_messages_series ON list_messages (series_id, part);
