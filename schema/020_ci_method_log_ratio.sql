-- 020_ci_method_log_ratio.sql - the interval a positive metric's
-- comparison uses since method version 3 (doc/STATISTICS.md, section 1):
-- the ratio of means on the log scale, "log-ratio".  Schema 008's CHECK
-- named only the methods before it.
ALTER TABLE comparisons DROP CONSTRAINT comparisons_ci_method_check;
ALTER TABLE comparisons ADD CONSTRAINT comparisons_ci_method_check
    CHECK (ci_method IN ('fieller', 'bca', 't-diff', 'bca-diff', 'log-ratio'));
