-- The games a table may hold are the ones registered in engine.games, not a list in the
-- schema: the PostgreSQL twin of sqlite/0016_games_from_specs.sql drops the CHECKs naming
-- them (the code checks the name).
ALTER TABLE games DROP CONSTRAINT games_game_check;
ALTER TABLE player_stats DROP CONSTRAINT player_stats_game_check;
