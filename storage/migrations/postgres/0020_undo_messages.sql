-- Where an undo request was posted in Discord: the PostgreSQL twin of
-- sqlite/0020_undo_messages.sql. NULL: not posted (yet), or asked before this column existed.
ALTER TABLE undo_requests ADD COLUMN channel_id bigint;
ALTER TABLE undo_requests ADD COLUMN message_id bigint;
