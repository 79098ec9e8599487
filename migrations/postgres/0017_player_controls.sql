-- How much a player wants a persona to talk, their choice remembered per
-- persona until they change it: quiet (it only answers when spoken to) or
-- chatty. No row: as the persona's character has it.
CREATE TABLE talk_preferences (
    player_id   TEXT NOT NULL REFERENCES players(id),
    persona_id  TEXT NOT NULL,
    mode        TEXT NOT NULL CHECK (mode IN ('normal', 'quiet', 'chatty')),
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (player_id, persona_id)
);

-- Notes on a game for its PGN, in order, each before move `ply` (the
-- number of moves played then): a hint the player asked for, with the
-- move the engine gave; a takeback granted, with the moves taken back.
CREATE TABLE match_notes (
    id          BIGSERIAL PRIMARY KEY,
    match_id    TEXT NOT NULL REFERENCES matches(id),
    ply         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('hint', 'takeback')),
    text        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX match_notes_by_match ON match_notes (match_id, id);
