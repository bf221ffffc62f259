-- The puzzles each member has finished (solved or failed) per server (issue 12), so that
-- /gomoku puzzle gives one they have not seen whatever new puzzles arrive meanwhile.
-- ``puzzle_key`` is bot/puzzles.py's Puzzle.key. Forget-me deletes a member's rows.
CREATE TABLE puzzle_seen (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    puzzle_key  TEXT NOT NULL,
    PRIMARY KEY (guild_id, user_id, puzzle_key)
) STRICT;
CREATE INDEX puzzle_seen_by_user ON puzzle_seen (user_id);
