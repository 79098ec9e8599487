-- The memories table made anew so that its memory_type CHECK takes
-- 'shared_moment' (migration 0018): SQLite cannot change a CHECK in place.
-- Run by store/sqlite_rebuild.rs after the migrations, once, in one
-- transaction on a connection with foreign keys off (SQLite's own
-- procedure for it): the rows of recall_log, memory_versions and
-- memory_traces that point at memories keep pointing at it, and nothing
-- cascades.
CREATE TABLE memories_next (
    id                TEXT PRIMARY KEY,
    player_id         TEXT REFERENCES players(id),
    persona_id        TEXT NOT NULL,
    memory_type       TEXT NOT NULL CHECK (memory_type IN ('player_behavior', 'player_observation',
                        'game_context', 'personal_note', 'streak', 'pattern', 'emotional', 'shared_moment')),
    content           TEXT NOT NULL,
    related_match_id  TEXT REFERENCES matches(id),
    created_by        TEXT NOT NULL CHECK (created_by IN ('main_agent', 'subconscious', 'persona_lore')),
    metadata          TEXT NOT NULL DEFAULT '{}',
    created_at        TEXT NOT NULL,
    importance        REAL NOT NULL DEFAULT 0.5,
    recall_count      INTEGER NOT NULL DEFAULT 0,
    last_recalled_at  TEXT,
    pinned            INTEGER NOT NULL DEFAULT 0,
    never_recall      INTEGER NOT NULL DEFAULT 0,
    updated_at        TEXT,
    valid_to          TEXT,
    superseded_by     TEXT REFERENCES memories(id),
    strength          REAL NOT NULL DEFAULT 1.0,
    last_seen_at      TEXT,
    decayed_at        TEXT,
    reinforcements    TEXT NOT NULL DEFAULT '[]',
    position_key      TEXT,
    eco               TEXT,
    opening           TEXT,
    tags              TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO memories_next (id, player_id, persona_id, memory_type, content, related_match_id, created_by, metadata,
    created_at, importance, recall_count, last_recalled_at, pinned, never_recall, updated_at, valid_to, superseded_by,
    strength, last_seen_at, decayed_at, reinforcements, position_key, eco, opening, tags)
SELECT id, player_id, persona_id, memory_type, content, related_match_id, created_by, metadata,
    created_at, importance, recall_count, last_recalled_at, pinned, never_recall, updated_at, valid_to, superseded_by,
    strength, last_seen_at, decayed_at, reinforcements, position_key, eco, opening, tags FROM memories;
DROP TABLE memories;
ALTER TABLE memories_next RENAME TO memories;
CREATE INDEX memories_by_owner ON memories (player_id, persona_id, created_at);
CREATE INDEX memories_by_match ON memories (related_match_id);
