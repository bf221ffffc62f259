-- One vocabulary for how boards look, a member's private boards as a server's public ones:
-- emoji, compact or image. A member's "phone" (an emoji window around the action) is what the
-- emoji look draws; "full" (the whole board) is what the compact look keeps on a phone.

UPDATE user_settings SET board_view = 'emoji' WHERE board_view = 'phone';
UPDATE user_settings SET board_view = 'compact' WHERE board_view = 'full';
