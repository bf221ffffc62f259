-- Ratings per game kind and rule: a Gomoku rating under freestyle says nothing about renju,
-- so each rule keeps its own (the other games have one rule, freestyle). Ratings kept so far
-- go to freestyle, the rule every game has unless its guild or its challenger chose another.

ALTER TABLE player_stats
    ADD COLUMN rule text NOT NULL DEFAULT 'freestyle'
        CHECK (rule IN ('freestyle', 'standard', 'renju', 'caro'));
ALTER TABLE player_stats DROP CONSTRAINT player_stats_pkey;
ALTER TABLE player_stats ADD PRIMARY KEY (scope, game, rule, user_id);

-- Leaderboards, per guild and overall.
DROP INDEX player_stats_leaderboard;
CREATE INDEX player_stats_leaderboard ON player_stats (scope, game, rule, ordinal DESC, user_id);

-- A guild may give its rated games no opening rule and colours by a coin toss ('random')
-- rather than an opening rule; without a row they open with swap2.
ALTER TABLE guild_openings DROP CONSTRAINT guild_openings_rated_opening_check;
ALTER TABLE guild_openings ADD CONSTRAINT guild_openings_rated_opening_check
    CHECK (rated_opening IN ('swap', 'swap2', 'soosorv8', 'taraguchi10', 'random'));
