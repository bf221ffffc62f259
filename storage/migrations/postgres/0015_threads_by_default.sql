-- A thread per game is every server's default: the PostgreSQL twin of
-- sqlite/0015_threads_by_default.sql. A stored "off" cannot be told apart from the default it
-- was saved under, so every server gets threads; one that wants its games in the channel sets
-- threads off again.
UPDATE guild_settings SET use_threads = true WHERE NOT use_threads;
ALTER TABLE guild_settings ALTER COLUMN use_threads SET DEFAULT true;
