-- 014_mail_recipients_unknown.sql - the outbox says who did not get a
-- mail, and which mails may or may not have arrived.
--
-- refused: the recipients left out of a mail, each {"address", "reason",
-- "at"}: one that is not a mail address (a patch's "From: a@x, b@y", a
-- From: that is not UTF-8) is left out when the mail is queued, one the
-- server refuses at RCPT TO when it is sent; the others still get it.
--
-- state 'unknown': the whole message went out after DATA and the server
-- never answered (a timeout, a dropped connection).  It may have been
-- delivered, so it is not sent again by itself: retrying blindly sent one
-- Message-ID three times.  last_error says what happened.
ALTER TABLE mails
    DROP CONSTRAINT mails_state_check,
    ADD CONSTRAINT mails_state_check
        CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'unknown')),
    ADD COLUMN refused jsonb NOT NULL DEFAULT '[]'
        CHECK (jsonb_typeof(refused) = 'array');

-- A password given inside the smtp URL (smtp://user:password@host) was
-- accepted before and written into the reasons of failed mails; it is
-- refused now, and the reasons already stored lose the user part.
UPDATE mails
   SET last_error = regexp_replace(last_error, '(smtps?://)[^/@[:space:]]*@',
                                   '\1', 'g')
 WHERE last_error ~ 'smtps?://[^/@[:space:]]*@';
