-- Where an undo request was posted in Discord (the message with the buttons that answer it),
-- so that an answer given after a restart, or a request dropped meanwhile, takes its buttons
-- away. NULL: not posted (yet), or asked before this column existed.
ALTER TABLE undo_requests ADD COLUMN channel_id INTEGER;
ALTER TABLE undo_requests ADD COLUMN message_id INTEGER;
