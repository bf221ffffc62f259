-- A thread per game is every server's default, where the bot may open threads. A stored "off"
-- cannot be told apart from the default it was saved under (turning threads off took turning
-- them on first), so every server gets threads; one that wants its games in the channel sets
-- threads off again. The repository names every column when it saves settings, so SQLite's
-- column DEFAULT is never read and stays as it is (changing it would rebuild the table).
UPDATE guild_settings SET use_threads = 1 WHERE use_threads = 0;
