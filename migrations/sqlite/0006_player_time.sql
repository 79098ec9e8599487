-- The player's UTC offset as their client reported it at match start, so the
-- persona knows whether it is morning or late night for them.
ALTER TABLE matches ADD COLUMN utc_offset_minutes INTEGER;
