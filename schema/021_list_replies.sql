-- 021_list_replies.sql - the farm's reply on a list's thread (issue 34;
-- doc/LISTS.md).
--
-- list_messages keeps what a reply needs of each mail read: Reply-To,
-- the original recipients (To and Cc) and References.
--
-- list_replies: one row per reply the farm owes a thread, unique per
-- (series, verdict): a series is one version of it (list_series), so a
-- series version is answered at most once per verdict, however often its
-- answer is computed and whatever restarts.  The row is written with the
-- answer, in its transaction, before anything is sent; a controller
-- claims it (state 'sending', claimed_at) in a transaction of its own,
-- then sends, then records 'sent' or 'failed'.  A row left 'sending' by
-- a controller stopped mid-send is never sent again by itself (it may
-- have arrived).  The Message-ID is chosen here, before sending, so the
-- patch page links the reply.  delivery 'mbox' (the list's --dry-run-mbox)
-- appends the mail to that mbox file instead of sending it.
--
-- A series that regressed and is being bisected: its reply is held
-- (bisection_id set, next_attempt_at NULL) until the bisection ends; one
-- that names the guilty patch turns the reply into an answer to that
-- patch's mail (subject, In-Reply-To, References), as 0-day answers the
-- commit it blames.  A bisection that ends otherwise, or is gone, lets
-- the reply go to the cover letter as written.
-- Whom a reply copies (lists.reply_cc): 'all' the original To and Cc
-- (and the list's address when they lack it), 'list' the list's address
-- only (lists.address, the list's posting address), 'none' nobody: the
-- author alone.
ALTER TABLE lists
    ADD COLUMN address  text CHECK (length(address) <= 998),
    ADD COLUMN reply_cc text NOT NULL DEFAULT 'all'
                        CHECK (reply_cc IN ('all', 'list', 'none')),
    ADD CHECK (reply_cc <> 'list' OR address IS NOT NULL);

ALTER TABLE list_messages
    ADD COLUMN reply_to   text CHECK (length(reply_to) <= 998),
    ADD COLUMN recipients text[] NOT NULL DEFAULT '{}',
    ADD COLUMN refs       text[] NOT NULL DEFAULT '{}';

CREATE TABLE list_replies (
    id              bigserial PRIMARY KEY,
    series_id       bigint NOT NULL REFERENCES list_series(id) ON DELETE CASCADE,
    patch_id        bigint REFERENCES patches(id) ON DELETE SET NULL,
    verdict         text NOT NULL CHECK (length(verdict) BETWEEN 1 AND 32),
    bisection_id    bigint,                 -- held until it ends (no FK:
                                            -- a deleted one releases it)
    -- without <>, as list_messages keeps them
    message_id      text NOT NULL UNIQUE CHECK (length(message_id) <= 998),
    in_reply_to     text NOT NULL CHECK (length(in_reply_to) <= 998),
    refs            text[] NOT NULL DEFAULT '{}',
    sender          text NOT NULL,
    to_addrs        text[] NOT NULL CHECK (cardinality(to_addrs) >= 1),
    cc_addrs        text[] NOT NULL DEFAULT '{}',
    subject         text NOT NULL,
    body            text NOT NULL,
    delivery        text NOT NULL CHECK (delivery IN ('smtp', 'mbox')),
    mbox            text CHECK (length(mbox) <= 4096),
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz DEFAULT now(),  -- NULL once sent or given up
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    claimed_at      timestamptz,
    sent_at         timestamptz,
    UNIQUE (series_id, verdict)
);
CREATE INDEX list_replies_due ON list_replies (next_attempt_at)
    WHERE state = 'pending';
CREATE INDEX list_replies_patch ON list_replies (patch_id);
