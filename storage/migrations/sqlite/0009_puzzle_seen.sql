-- The puzzles each member has finished (solved or failed) per server, so that
-- /gomoku puzzle gives one they have not seen whatever new puzzles arrive meanwhile.
-- ``puzzle_key`` is bot/puzzles.py's Puzzle.key. Forget-me deletes a member's rows.
CREATE TABLE puzzle_seen (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    puzzle_key  TEXT NOT NULL,
    PRIMARY KEY (guild_id, user_id, puzzle_key)
) STRICT;
CREATE INDEX puzzle_seen_by_user ON puzzle_seen (user_id);

-- Puzzles found in a server's own finished Gomoku games: the bot searches each
-- finished game once, in the AI pool, for positions where the winner had a forced win, and
-- keeps what it found (``data``: a JSON list from bot/puzzles.py, empty when none), so the
-- row also says the game was searched. No user ids: the game row holds those.
CREATE TABLE game_puzzles (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    data     TEXT NOT NULL,
    made_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX games_finished_at ON games (finished_at) WHERE status = 'finished';
