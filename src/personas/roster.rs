//! The club's personas while it serves: loaded at start, and one more (or a
//! new version of one) whenever an admin imports a card. A match holds its
//! persona's `Arc`, so a replaced persona plays on in the matches that
//! started with it.

use std::sync::{Arc, RwLock};

use super::Persona;

#[derive(Default)]
pub struct Roster {
    personas: RwLock<Vec<Arc<Persona>>>,
}

impl Roster {
    pub fn new(personas: Vec<Persona>) -> Roster {
        Roster {
            personas: RwLock::new(personas.into_iter().map(Arc::new).collect()),
        }
    }

    /// Every persona, in the order they were loaded or added.
    pub fn list(&self) -> Vec<Arc<Persona>> {
        self.read().clone()
    }

    pub fn get(&self, id: &str) -> Option<Arc<Persona>> {
        self.read().iter().find(|p| p.id == id).cloned()
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// Adds a persona, or puts it in the place of the one with its id.
    pub fn put(&self, persona: Persona) -> Arc<Persona> {
        let persona = Arc::new(persona);
        let mut all = self.personas.write().unwrap_or_else(|e| e.into_inner());
        match all.iter_mut().find(|p| p.id == persona.id) {
            Some(slot) => *slot = persona.clone(),
            None => all.push(persona.clone()),
        }
        persona
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Persona>>> {
        // A panic while holding the lock cannot leave the list half-changed.
        self.personas.read().unwrap_or_else(|e| e.into_inner())
    }
}
