//! Id newtypes, so a match id is never passed where a player id is wanted.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not a valid id")]
pub struct BadId(pub String);

macro_rules! id_type {
    ($name:ident) => {
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
        )]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            pub fn new() -> Self {
                Self(Uuid::new_v4())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = BadId;
            fn from_str(s: &str) -> Result<Self, BadId> {
                Uuid::parse_str(s)
                    .map(Self)
                    .map_err(|_| BadId(s.chars().take(64).collect()))
            }
        }
    };
}

id_type!(PlayerId);
id_type!(MatchId);
id_type!(MemoryId);
id_type!(PuzzleId);

/// A persona's id: the name of its file and the slug of its card
/// ("viktor", "captain-hook"): lowercase ASCII letters, digits and '-',
/// at most 64. Read as a `str` wherever one is wanted (SQL, prompts, paths);
/// a text becomes one by `parse` (checked: the API's paths) or `From` (a
/// row or a file already checked when it was written).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema, sqlx::Type)]
#[serde(transparent)]
#[sqlx(transparent)]
pub struct PersonaId(String);

impl PersonaId {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `s` has the form of a persona id.
    pub fn is_valid(s: &str) -> bool {
        !s.is_empty()
            && s.len() <= 64
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    }
}

impl std::ops::Deref for PersonaId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for PersonaId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PersonaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for PersonaId {
    type Err = BadId;
    fn from_str(s: &str) -> Result<Self, BadId> {
        match PersonaId::is_valid(s) {
            true => Ok(PersonaId(s.to_string())),
            false => Err(BadId(s.chars().take(64).collect())),
        }
    }
}

impl From<String> for PersonaId {
    fn from(s: String) -> Self {
        PersonaId(s)
    }
}

impl From<&PersonaId> for PersonaId {
    fn from(id: &PersonaId) -> Self {
        id.clone()
    }
}

impl From<&str> for PersonaId {
    fn from(s: &str) -> Self {
        PersonaId(s.to_string())
    }
}

impl PartialEq<str> for PersonaId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for PersonaId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for PersonaId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}
