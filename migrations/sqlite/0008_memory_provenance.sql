-- Where each memory's words went, so that forgetting it rewrites exactly
-- those rows, all of them the owner's (issue 33).
--
-- A trace is one turn of one match that quoted or used the memory: the
-- match's events first_seq..last_seq (and the messages and trigger log rows
-- those events carry), and, since a model's thread is append-only within a
-- match, that match's LLM calls from `at` on. source_seq is the player's chat
-- event the memory was made from, if it was made from one.
CREATE TABLE memory_traces (
    memory_id   TEXT NOT NULL,
    match_id    TEXT NOT NULL REFERENCES matches(id),
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    source_seq  INTEGER,
    at          TEXT NOT NULL
);
CREATE INDEX memory_traces_by_memory ON memory_traces (memory_id);

-- A memory's earlier texts, kept when it is edited (its history on the
-- review page) and forgotten with it.
CREATE TABLE memory_versions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id    TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    content      TEXT NOT NULL,
    replaced_at  TEXT NOT NULL
);
CREATE INDEX memory_versions_by_memory ON memory_versions (memory_id, id);

-- The event each message and trigger log row was written with, so a trace's
-- sequence numbers find them on an index.
ALTER TABLE messages ADD COLUMN event_seq INTEGER;
ALTER TABLE trigger_log ADD COLUMN event_seq INTEGER;
CREATE INDEX messages_by_event ON messages (match_id, event_seq);
CREATE INDEX trigger_log_by_event ON trigger_log (match_id, event_seq);
