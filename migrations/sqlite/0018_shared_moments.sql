-- Shared moments (a swindle, a stalemate escape, a blunder laughed over, a
-- joke the player made) are memories of their own kind: the memories
-- table's memory_type CHECK takes 'shared_moment'. SQLite cannot change a
-- CHECK in place, and a migration here runs inside a transaction, where
-- foreign keys cannot be turned off to make the table anew; so
-- store/sqlite_rebuild.rs does it right after the migrations
-- (migrations/sqlite-rebuilds/0018_memories.sql), once.
SELECT 1;
