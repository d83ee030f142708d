-- A tracked job's kind is its job's name: backups were recorded as `backup` before, now `backup_create`.
UPDATE "jobs" SET "kind" = 'backup_create' WHERE "kind" = 'backup';
