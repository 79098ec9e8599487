//! Personas added while the club serves: an admin's character card becomes
//! a persona file, its lore memories and a place in the roster, all or
//! nothing; and any persona goes out as a card.

use std::sync::Arc;

use crate::memory::MemoryError;
use crate::personas::card::{self, CardError, Format, ImportOptions};
use crate::personas::{self, InstallError, Persona};

use super::Services;

/// What an import did.
#[derive(Debug, Clone)]
pub struct CardImport {
    pub persona: Arc<Persona>,
    /// What the import decided that the card did not say.
    pub notes: Vec<String>,
    pub replaced: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Card(#[from] CardError),
    #[error(transparent)]
    Install(#[from] InstallError),
    #[error("the persona's lore could not be stored: {0}")]
    Memory(#[from] MemoryError),
}

impl Services {
    /// Reads a card (PNG or JSON), makes it a persona, stores its lore and
    /// file, and adds it to the roster: the page lists it at once.
    pub async fn import_card(
        &self,
        bytes: &[u8],
        opts: &ImportOptions,
        replace: bool,
    ) -> Result<CardImport, ImportError> {
        let imported = card::import(card::read(bytes)?, opts)?;
        // One at a time: two imports of one id must not interleave.
        let _one = self.imports.lock().await;
        let dir = self.config.personas_dir.clone();
        let prepared = {
            let imported = imported.clone();
            tokio::task::spawn_blocking(move || personas::prepare(&dir, &imported, replace))
                .await
                .expect("the import task does not panic")?
        };
        let before = self.personas.get(&imported.persona.id);
        let undo_lore = || async {
            let mut was = imported.persona.clone();
            was.lore = before.as_ref().map(|b| b.lore.clone()).unwrap_or_default();
            if let Err(e) = self.memory.sync_lore(&[was]).await {
                tracing::error!("could not put back the lore of {}: {e}", imported.persona.id);
            }
        };
        if let Err(e) = self.memory.sync_lore(std::slice::from_ref(&imported.persona)).await {
            undo_lore().await;
            return Err(e.into());
        }
        let installed = tokio::task::spawn_blocking(move || prepared.commit())
            .await
            .expect("the import task does not panic");
        let installed = match installed {
            Ok(installed) => installed,
            Err(e) => {
                undo_lore().await;
                return Err(e.into());
            }
        };
        tracing::info!(
            "persona {} imported from a card into {}",
            imported.persona.id,
            installed.path.display()
        );
        Ok(CardImport {
            persona: self.personas.put(imported.persona),
            notes: imported.notes,
            replaced: installed.replaced,
        })
    }

    /// A persona as a card file, or None if there is no such persona.
    pub async fn export_card(&self, id: &str, format: Format) -> Result<Option<Vec<u8>>, InstallError> {
        let Some(persona) = self.personas.get(id) else {
            return Ok(None);
        };
        let dir = self.config.personas_dir.clone();
        tokio::task::spawn_blocking(move || {
            let files = personas::read_files(&dir, &persona)?;
            Ok(Some(card::export(&persona, &files, format)))
        })
        .await
        .expect("the export task does not panic")
    }
}
