-- The newest version of each game that its board message is known to show (NULL: not known).
-- A start-up redraws every open game whose board may be behind its moves: a board edit that
-- Discord delayed (a rate limit, an outage) and a process that stopped before it went out.
ALTER TABLE games ADD COLUMN shown_version INTEGER;
