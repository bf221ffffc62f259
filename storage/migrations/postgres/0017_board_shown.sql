-- The newest version of each game that its board message is known to show (NULL: not known):
-- the PostgreSQL twin of sqlite/0017_board_shown.sql.
ALTER TABLE games ADD COLUMN shown_version integer;
