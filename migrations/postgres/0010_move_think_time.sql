-- How long the side to move took over each move, in milliseconds: the
-- subconscious cues a long think or an instant move, and the reflection and
-- later matches can read a player's habits from it. NULL for moves made
-- before this column existed.
ALTER TABLE moves ADD COLUMN think_ms INTEGER;
