-- The engine's score after each move, from White's side, beside the win%
-- made from it: centipawns, or the moves to mate (negative: Black mates).
-- A review's PGN gives it as [%eval]; moves stored before keep NULL.
ALTER TABLE moves ADD COLUMN eval_cp INTEGER;
ALTER TABLE moves ADD COLUMN eval_mate INTEGER;
