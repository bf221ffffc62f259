-- A move's stone is written by the move's own UPDATE of its game: the UPDATE sets the point
-- and colour in the last_* columns and last_seq to the version it makes, and this trigger
-- inserts the stone. A move is then one statement, atomic without a transaction around it,
-- so a batch of moves can be sent to the database without waiting for their answers.
-- last_seq guards against stale values: an UPDATE that does not name a stone leaves last_seq
-- at an older version, and the trigger does nothing.
ALTER TABLE games ADD COLUMN last_x INTEGER CHECK (last_x >= 0);
ALTER TABLE games ADD COLUMN last_y INTEGER CHECK (last_y >= 0);
ALTER TABLE games ADD COLUMN last_color TEXT CHECK (last_color IN ('black', 'white'));
ALTER TABLE games ADD COLUMN last_seq INTEGER;

CREATE TRIGGER games_move_writes_its_stone AFTER UPDATE OF ply ON games
WHEN NEW.last_seq IS NEW.version AND NEW.ply = OLD.ply + 1
BEGIN
    INSERT INTO moves (game_id, ply, x, y, color, made_at, seq)
    VALUES (NEW.id, OLD.ply, NEW.last_x, NEW.last_y, NEW.last_color, NEW.updated_at, NEW.version);
END;
