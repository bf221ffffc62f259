-- The columns sqlite/0021_moves_by_trigger.sql adds for its trigger, so that the two schemas
-- keep one list of columns (``python -m storage copy`` carries every SQLite column). PostgreSQL
-- writes a move's stone in the move's own statement (``SQL_PLAY_MOVE``) and leaves them NULL.
ALTER TABLE games ADD COLUMN last_x integer CHECK (last_x >= 0);
ALTER TABLE games ADD COLUMN last_y integer CHECK (last_y >= 0);
ALTER TABLE games ADD COLUMN last_color text CHECK (last_color IN ('black', 'white'));
ALTER TABLE games ADD COLUMN last_seq integer;
