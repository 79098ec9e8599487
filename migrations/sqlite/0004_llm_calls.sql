-- Every LLM call: token and latency accounting, and (request, response) as
-- the append-only conversation log per match and role.
CREATE TABLE llm_calls (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id           TEXT,
    role               TEXT NOT NULL,
    endpoint           TEXT NOT NULL,
    model              TEXT NOT NULL,
    request            TEXT NOT NULL,
    response           TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL,
    completion_tokens  INTEGER NOT NULL,
    latency_ms         INTEGER NOT NULL,
    error              TEXT,
    created_at         TEXT NOT NULL
);
CREATE INDEX llm_calls_by_match ON llm_calls (match_id, role, id);
