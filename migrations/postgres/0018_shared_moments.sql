-- Shared moments (a swindle, a stalemate escape, a blunder laughed over, a
-- joke the player made) are memories of their own kind.
ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_memory_type_check;
ALTER TABLE memories ADD CONSTRAINT memories_memory_type_check CHECK (memory_type IN ('player_behavior',
    'player_observation', 'game_context', 'personal_note', 'streak', 'pattern', 'emotional', 'shared_moment'));
