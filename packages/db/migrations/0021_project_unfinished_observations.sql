-- A project's cap (10,000 unfinished observations) counts them at every creation; without this index the count
-- reads the project's whole history through observations_project_idx.
CREATE INDEX "observations_project_unfinished_idx" ON "observations" USING btree ("project_id") WHERE status in ('pending', 'assigned', 'in_progress', 'acquisition_complete', 'paused', 'suspended');
