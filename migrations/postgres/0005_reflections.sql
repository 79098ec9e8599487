-- The persona's reflection after each match (summary, key moments, what it
-- learned, mood, head-to-head), as JSON; one per match.
CREATE TABLE reflections (
    match_id    TEXT PRIMARY KEY REFERENCES matches(id),
    body        TEXT NOT NULL,
    written_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
