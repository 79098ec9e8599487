-- The concepts a memory names (memory::concepts), as a JSON array of tags:
-- the subconscious recalls by them, the review shows them, and
-- `kibitz memories reindex` recomputes them for memories made before.
ALTER TABLE memories ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
