//! Putting an imported persona into the personas directory, all or
//! nothing: its file and images are written to a staging directory, checked
//! by loading them back, then moved into place; anything that fails leaves
//! the directory as it was.

use std::path::{Path, PathBuf};

use super::card::Imported;
use super::load::{PersonaError, assets_dir, load_dir_entries, load_file};
use super::model::Persona;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("field `{field}`: {problem}")]
    Taken { field: &'static str, problem: String },
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Invalid(#[from] PersonaError),
}

/// Where the persona went, and whether it replaced one.
#[derive(Debug, Clone)]
pub struct Installed {
    pub path: PathBuf,
    pub replaced: bool,
}

/// An import checked and written aside, ready to move into place.
pub struct Prepared {
    dir: PathBuf,
    id: String,
    staging: tempfile::TempDir,
    staged: PathBuf,
    old: Option<PathBuf>,
}

/// Writes `imported` as `<dir>/<id>.toml` and its images in
/// `<dir>/<id>.assets/`. An id or name already used is refused unless
/// `replace` is set and it is the same id.
pub fn install(dir: &Path, imported: &Imported, replace: bool) -> Result<Installed, InstallError> {
    prepare(dir, imported, replace)?.commit()
}

/// Checks that the id and name are free (or the id is to be replaced) and
/// writes the persona aside, loaded back to be sure; the directory is not
/// changed until `commit`.
pub fn prepare(dir: &Path, imported: &Imported, replace: bool) -> Result<Prepared, InstallError> {
    let p = &imported.persona;
    let existing = load_dir_entries(dir)?;
    let same_id = existing.iter().find(|(_, q)| q.id == p.id);
    if let Some((path, q)) = same_id.filter(|_| !replace) {
        let problem = format!(
            "`{}` is already the id of {} ({}); give another (--id) or replace it (--replace)",
            p.id,
            q.name,
            path.display()
        );
        return Err(InstallError::Taken { field: "id", problem });
    }
    if let Some((path, q)) = existing
        .iter()
        .find(|(_, q)| q.id != p.id && q.name.eq_ignore_ascii_case(&p.name))
    {
        let problem = format!(
            "'{}' is already the name of persona `{}` ({})",
            p.name,
            q.id,
            path.display()
        );
        return Err(InstallError::Taken { field: "name", problem });
    }
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}.import-", p.id))
        .tempdir_in(dir)
        .map_err(io(dir))?;
    let staged = stage(staging.path(), imported)?;
    Ok(Prepared {
        dir: dir.into(),
        id: p.id.to_string(),
        staging,
        staged,
        old: same_id.map(|(path, _)| path.clone()),
    })
}

impl Prepared {
    /// Whether this replaces a persona of the same id.
    pub fn replaces(&self) -> bool {
        self.old.is_some()
    }

    pub fn commit(self) -> Result<Installed, InstallError> {
        commit(
            &self.dir,
            &self.id,
            self.staging.path(),
            &self.staged,
            self.old.as_deref(),
        )?;
        Ok(Installed {
            path: self.dir.join(format!("{}.toml", self.id)),
            replaced: self.old.is_some(),
        })
    }
}

/// A persona's image files, read from its `<id>.assets/`.
pub fn read_files(dir: &Path, p: &Persona) -> Result<super::card::Files, InstallError> {
    let assets = assets_dir(dir, &p.id);
    let mut files = super::card::Files::new();
    for name in p.avatar.iter().chain(p.expression_images.values()) {
        let path = assets.join(name);
        files.insert(name.clone(), std::fs::read(&path).map_err(io(&path))?);
    }
    Ok(files)
}

/// Writes the persona and its images under `staging`, then loads them
/// back: what is installed is what the server will load.
fn stage(staging: &Path, imported: &Imported) -> Result<PathBuf, InstallError> {
    let p = &imported.persona;
    let file = staging.join(format!("{}.toml", p.id));
    let assets = assets_dir(staging, &p.id);
    if !imported.files.is_empty() {
        std::fs::create_dir(&assets).map_err(io(&assets))?;
        for (name, bytes) in &imported.files {
            let path = assets.join(name);
            std::fs::write(&path, bytes).map_err(io(&path))?;
        }
    }
    std::fs::write(&file, to_toml(p)).map_err(io(&file))?;
    load_file(&file)?;
    Ok(file)
}

/// Moves the staged files into place; an old persona of the same id is
/// kept aside until the new one is in, and put back if that fails.
fn commit(dir: &Path, id: &str, staging: &Path, staged: &Path, old: Option<&Path>) -> Result<(), InstallError> {
    let (file, assets) = (dir.join(format!("{id}.toml")), assets_dir(dir, id));
    let aside = staging.join("replaced");
    if let Some(old) = old {
        std::fs::create_dir(&aside).map_err(io(&aside))?;
        std::fs::rename(old, aside.join("persona.toml")).map_err(io(old))?;
        if assets.exists() {
            std::fs::rename(&assets, aside.join("assets")).map_err(io(&assets))?;
        }
    }
    let moved = (|| {
        let staged_assets = assets_dir(staging, id);
        if staged_assets.exists() {
            std::fs::rename(&staged_assets, &assets).map_err(io(&assets))?;
        }
        std::fs::rename(staged, &file).map_err(io(&file))
    })();
    if moved.is_err() {
        let _ = std::fs::remove_dir_all(&assets);
        if let Some(old) = old {
            let _ = std::fs::rename(aside.join("persona.toml"), old);
            let _ = std::fs::rename(aside.join("assets"), &assets);
        }
    }
    moved
}

/// A persona file as TOML, with a line that says where it came from.
pub fn to_toml(p: &Persona) -> String {
    let body = toml::to_string(p).expect("a persona serializes to TOML");
    format!("# Imported from a character card by `kibitz personas import`; edit freely.\n{body}")
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.into(),
        source,
    }
}
