-- A match's memories (its reflection's "what I learned", its review) are
-- read at every game's end: without an index that read scanned every memory.
CREATE INDEX memories_by_match ON memories (related_match_id);
