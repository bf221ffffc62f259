-- The PostgreSQL twin of sqlite/0014_looks.sql: one vocabulary for how boards look (emoji,
-- compact or image). A member's "phone" becomes emoji (the same window of emoji); "full"
-- becomes compact (the whole board, which compact keeps on a phone).

UPDATE user_settings SET board_view = 'emoji' WHERE board_view = 'phone';
UPDATE user_settings SET board_view = 'compact' WHERE board_view = 'full';
