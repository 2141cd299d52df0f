-- 012_kernel_labels.sql - a kernel name that is only a label.
--
-- `submit --kernel NAME` and `run PLAN --kernel NAME` (by default the
-- release a local host runs) name whatever kernel a local or ssh host
-- was already running: the farm built nothing and booted nothing under
-- that name, and applied no series.  `labelled` says so, so that `kernel
-- list`, `job show` and the report pages can say "labelled, not built"
-- instead of letting a label pass for a build.

ALTER TABLE kernels
    ADD COLUMN labelled boolean NOT NULL DEFAULT false;

-- Rows made before this migration: an external kernel without an image
-- that jobs ran under was such a label.
UPDATE kernels k SET labelled = true
 WHERE k.build_state = 'external' AND k.image_path IS NULL
   AND EXISTS (SELECT 1 FROM jobs j WHERE j.kernel_id = k.id);
