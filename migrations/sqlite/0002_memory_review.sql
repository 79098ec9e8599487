-- Players authenticate with a bearer token; only its SHA-256 is stored.
ALTER TABLE players ADD COLUMN token_hash TEXT;
CREATE UNIQUE INDEX players_by_token ON players (token_hash);

-- Strength, pinning and review flags (memory issue).
ALTER TABLE memories ADD COLUMN importance REAL NOT NULL DEFAULT 0.5;
ALTER TABLE memories ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN last_recalled_at TEXT;
ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN never_recall INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN updated_at TEXT;
-- A superseded memory stays in the history but is no longer recalled by default.
ALTER TABLE memories ADD COLUMN valid_to TEXT;
ALTER TABLE memories ADD COLUMN superseded_by TEXT REFERENCES memories(id);

-- Every time the subconscious handed a memory to the main agent, and why.
CREATE TABLE recall_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id    TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    match_id     TEXT NOT NULL REFERENCES matches(id),
    trigger      TEXT NOT NULL,
    score        REAL NOT NULL,
    reason       TEXT NOT NULL,
    recalled_at  TEXT NOT NULL
);
CREATE INDEX recall_log_by_memory ON recall_log (memory_id, id);
