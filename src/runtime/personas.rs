//! Personas added while the club serves: an admin's character card becomes
//! a persona file, its lore memories and a place in the roster, all or
//! nothing, and (on PostgreSQL) a card in SQL that the club's other nodes
//! install (`roster.rs`); and any persona goes out as a card.

use std::sync::Arc;

use crate::ids::PersonaId;
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
pub enum CardImportError {
    #[error(transparent)]
    Card(#[from] CardError),
    #[error(transparent)]
    Install(#[from] InstallError),
    #[error("the persona's lore could not be stored: {0}")]
    Memory(#[from] MemoryError),
}

impl Services {
    /// Reads a card (PNG or JSON), makes it a persona, stores its lore and
    /// file, and adds it to the roster: the page lists it at once, and the
    /// club's other nodes within a third of the lease time.
    pub async fn import_card(
        &self,
        bytes: &[u8],
        opts: &ImportOptions,
        replace: bool,
    ) -> Result<CardImport, CardImportError> {
        let mut done = self.install_card(bytes, opts, replace).await?;
        if let Err(e) = self.share_card(&done.persona.id).await {
            tracing::error!(persona = %done.persona.id, "an imported persona is not shared with the other nodes: {e}");
            done.notes.push(format!(
                "installed on this node only ({e}): import it again to give it to the club's other nodes"
            ));
        }
        Ok(done)
    }

    /// On PostgreSQL, keeps the persona as the card it became (exported
    /// back, images and all) for the club's other nodes to install.
    async fn share_card(&self, id: &PersonaId) -> Result<(), String> {
        let Some(leases) = &self.leases else {
            return Ok(());
        };
        let card = self
            .export_card(id, Format::V3Png)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("it left the roster")?;
        let node = leases.run.node_id.as_str();
        self.db
            .record_card(id, &card, Some(node))
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Installs a card on this node only: the persona file, its lore and
    /// its place in the roster, all or nothing.
    pub(super) async fn install_card(
        &self,
        bytes: &[u8],
        opts: &ImportOptions,
        replace: bool,
    ) -> Result<CardImport, CardImportError> {
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

/// The club's personas, as a front end reaches them.
impl super::Runtime {
    pub fn personas(&self) -> Vec<Arc<Persona>> {
        self.svc.personas.list()
    }

    pub fn persona(&self, id: &str) -> Option<Arc<Persona>> {
        self.svc.persona(id)
    }

    pub async fn import_card(
        &self,
        bytes: &[u8],
        opts: &ImportOptions,
        replace: bool,
    ) -> Result<CardImport, CardImportError> {
        self.svc.import_card(bytes, opts, replace).await
    }

    pub async fn export_card(&self, id: &str, format: Format) -> Result<Option<Vec<u8>>, InstallError> {
        self.svc.export_card(id, format).await
    }
}
