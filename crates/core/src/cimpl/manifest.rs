//! The TOML manifest that declares a C implementation: sources, variants, targets.
//!
//! ```toml
//! name = "c-sha256"               # provider name in the catalog
//! sources = ["sha256.c"]          # relative to this file
//! include_dirs = ["."]            # where api.h is
//! flags = ["-O2"]                 # for every variant
//! targets = ["x86-64", "haswell", "native"]
//!
//! [[implementation]]
//! variant = "o3-unroll"           # row of the variant x target table
//! algorithm = "sha-256"
//! kind = "hash"                   # hash | stream | aead | core | kem | scalarmult | xof
//! flags = ["-O3", "-funroll-loops"]
//! requires = []                   # CPU features the variant needs (e.g. ["avx2"])
//! sources = ["avx2/sha256.c"]     # optional: its own files, in place of the manifest's
//! vectors = [{ input = "616263", output = "ba7816bf...", source = "FIPS 180-4" }]
//! vectors_file = "vectors.toml"   # more known answers, as [[vector]] tables
//! include_dirs = ["avx2"]         # optional: searched before the manifest's
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::compile::API_NAMES;
use super::target::{self, Target};

/// Which SUPERCOP-style API a build exports: the manifest's `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CKind {
    /// `crypto_hash`: a fixed-length digest of a message.
    Hash,
    /// `crypto_stream_xor`: a stream cipher.
    Stream,
    /// `crypto_aead_encrypt` and `crypto_aead_decrypt`: authenticated encryption.
    Aead,
    /// `crypto_core`: one block cipher call or one permutation.
    Core,
    /// `crypto_kem_keypair`, `crypto_kem_enc` and `crypto_kem_dec`: key encapsulation.
    Kem,
    /// `crypto_scalarmult` and `crypto_scalarmult_base`: Diffie-Hellman (the catalog's `dh`,
    /// the name `list` shows, which a manifest may use too).
    #[serde(alias = "dh")]
    Scalarmult,
    /// `crypto_xof`: an extendable-output function, with one lane or `CRYPTO_LANES`.
    Xof,
}

/// A known answer from the manifest, in hex, for the kinds whose functions are one input
/// to one output: `core` (input block, key; out a block), `hash` (message; out the
/// digest), `stream` (message, key, nonce; out the ciphertext), `xof` (message; out as
/// many bytes as `output` has, in every lane). An AEAD's known answers are its `kat` file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// The input: `core`'s block (`CRYPTO_INPUTBYTES` bytes), or the message.
    pub input: String,
    /// The key (`CRYPTO_KEYBYTES` bytes): `core` and `stream` only, empty for a keyless
    /// `core`.
    #[serde(default)]
    pub key: String,
    /// The nonce (`CRYPTO_NONCEBYTES` bytes): `stream` only.
    #[serde(default)]
    pub nonce: String,
    /// The expected output: `CRYPTO_OUTPUTBYTES` bytes for `core`, `CRYPTO_BYTES` for
    /// `hash`, the message's length for `stream`, any length for `xof`.
    pub output: String,
    /// Where the answer comes from, which a mismatch names; `manifest vector` where empty
    /// (a `vectors_file`'s vector without one is named by its file and line).
    #[serde(default)]
    pub source: String,
    /// `path:line` of the `[[vector]]` table of a `vectors_file` this came from, which a
    /// refusal of the vector names (an inline vector is named by its index in `vectors`).
    #[serde(skip)]
    pub origin: Option<String>,
}

impl Vector {
    /// Whether this vector has the fields `kind`'s functions take, in hex, and an output
    /// that a call can be asked for; the lengths `api.h` fixes are checked once a build
    /// gives them (`check_vectors`).
    pub fn fits(&self, kind: CKind) -> Result<(), String> {
        let fields = Vector::FIELDS.map(|f| (f, self.field(f)));
        for (field, h) in fields {
            match hex::decode(h) {
                Err(hex::FromHexError::OddLength) => {
                    return Err(format!(
                        "`{field}` has an odd number of hex digits ({}): `{h}`; each byte is two",
                        h.len()
                    ));
                }
                Err(_) => return Err(format!("`{field}` is not hex: `{h}`")),
                Ok(_) => {}
            }
        }
        let takes: &[&str] = match kind {
            CKind::Core => &["input", "key", "output"],
            CKind::Hash | CKind::Xof => &["input", "output"],
            CKind::Stream => &["input", "key", "nonce", "output"],
            CKind::Aead => return Err("an aead's known answers are a `kat` file (NIST LWC genkat_aead form), not `vectors`".into()),
            CKind::Kem | CKind::Scalarmult => {
                return Err(format!(
                    "`vectors` are for core, hash, stream and xof implementations; a {} build is checked by round trips and agreement between variants",
                    format!("{kind:?}").to_lowercase()
                ));
            }
        };
        if let Some((field, _)) = fields
            .iter()
            .find(|(f, h)| !h.is_empty() && !takes.contains(f))
        {
            return Err(format!(
                "a {} vector has no `{field}` (its fields: {})",
                format!("{kind:?}").to_lowercase(),
                takes.join(", ")
            ));
        }
        if kind == CKind::Stream && self.input.len() != self.output.len() {
            return Err(format!(
                "`output` has {} bytes, `input` {}: a stream cipher's output is as long as its message",
                self.output.len() / 2,
                self.input.len() / 2
            ));
        }
        if kind == CKind::Xof && self.output.is_empty() {
            return Err("`output` is empty: give the bytes the function must squeeze".into());
        }
        Ok(())
    }

    /// The fields of bytes, by name.
    pub const FIELDS: [&'static str; 4] = ["input", "key", "nonce", "output"];

    /// A field of bytes (one of [`Vector::FIELDS`]), in hex.
    pub fn field(&self, name: &str) -> &str {
        match name {
            "input" => &self.input,
            "key" => &self.key,
            "nonce" => &self.nonce,
            "output" => &self.output,
            _ => unreachable!("`{name}` is not one of Vector::FIELDS"),
        }
    }

    /// Where the answer comes from, which a mismatch names.
    pub fn source(&self) -> &str {
        if self.source.is_empty() {
            "manifest vector"
        } else {
            &self.source
        }
    }

    /// A field already checked to be hex (`fits`).
    pub fn bytes(field: &str) -> Vec<u8> {
        hex::decode(field).expect("vector fields are checked to be hex when read")
    }
}

/// One `[[implementation]]` table: an algorithm built one way, its variant.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestImplementation {
    /// The variant's name, e.g. `o3-unroll`: its row in the variant x target table.
    pub variant: String,
    /// The algorithm it computes, e.g. `sha-256`; variants of one algorithm must agree.
    pub algorithm: String,
    /// Which API its sources export.
    pub kind: CKind,
    /// This variant's own sources, in place of the manifest's: libraries whose variants
    /// are separate files defining the same symbols (a `ref/` and an `avx2/` directory).
    pub sources: Option<Vec<PathBuf>>,
    /// Header directories of this variant, searched before the manifest's.
    #[serde(default)]
    pub include_dirs: Vec<PathBuf>,
    /// This variant's compiler flags, given after the manifest's `flags`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// CPU features the variant needs, as /proc/cpuinfo names them (e.g. `avx2`): it is
    /// built only for targets that have them.
    #[serde(default)]
    pub requires: Vec<String>,
    /// A NIST LWC `genkat_aead` file, relative to `kat_dir`; once loaded, a variant
    /// without one has the first of its algorithm's.
    pub kat: Option<String>,
    /// Known answers (`core`, `hash`, `stream`, `xof`); once loaded, `vectors_file`'s
    /// are appended.
    #[serde(default)]
    pub vectors: Vec<Vector>,
    /// More known answers, from a TOML file of `[[vector]]` tables (relative to the
    /// manifest): a 1600-bit permutation's vectors need not sit inline.
    pub vectors_file: Option<PathBuf>,
    /// The `api.h` sizes this build must have, e.g. `CRYPTO_KEYBYTES = 16`.
    #[serde(default)]
    pub sizes: BTreeMap<String, u64>,
}

/// A manifest file, read and checked (see the module documentation for its form).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The provider name its builds are listed under in the catalog.
    pub name: String,
    /// Free text about the manifest, for its readers; `list MANIFEST` shows it.
    #[serde(default)]
    pub description: String,
    /// The sources every variant compiles, unless it lists its own.
    #[serde(default)]
    pub sources: Vec<PathBuf>,
    /// Header directories every variant searches, after its own.
    #[serde(default)]
    pub include_dirs: Vec<PathBuf>,
    /// The C compiler to run; `cc` where not given.
    #[serde(default = "default_compiler")]
    pub compiler: String,
    /// Compiler flags for every variant, given before the variant's own.
    #[serde(default)]
    pub flags: Vec<String>,
    /// The targets every variant is built for, by name (see [`target::KNOWN`]).
    pub targets: Vec<String>,
    /// Where `kat` files are, relative to the manifest (overridden by `--kat-dir`).
    pub kat_dir: Option<PathBuf>,
    /// The `[[implementation]]` tables, in the file's order: the first runnable build of
    /// an algorithm is the one its other variants must agree with.
    #[serde(rename = "implementation")]
    pub implementations: Vec<ManifestImplementation>,
    /// The file it was read from, which errors name; not part of the TOML.
    #[serde(skip)]
    pub path: PathBuf,
    /// The line of each `[[implementation]]` header, in order, which errors name (none
    /// where the implementations are not written as such tables).
    #[serde(skip)]
    implementation_lines: Vec<usize>,
    /// The line of each implementation's inline `vectors` key, where it has one.
    #[serde(skip)]
    vectors_lines: Vec<Option<usize>>,
}

/// Which builds of a manifest to keep, from `PATH.toml:KEY=VALUE,...` on the command
/// line: each key may be given more than once (either value), an empty list keeps all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// `variant=` values: the variants to keep.
    pub variant: Vec<String>,
    /// `algorithm=` values: the algorithms to keep.
    pub algorithm: Vec<String>,
    /// `target=` values: the targets to build for.
    pub target: Vec<String>,
    /// `operation=` values: the operations to time.
    pub operation: Vec<String>,
}

impl Selection {
    /// The keys a filter may have, in the order errors list them.
    pub const KEYS: [&str; 4] = ["variant", "algorithm", "target", "operation"];

    /// The filters after `PATH.toml:` in `arg`.
    pub fn parse(arg: &str, filters: &str) -> Result<Selection> {
        let mut s = Selection::default();
        for item in filters.split(',') {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            let list = match key.trim() {
                "variant" => &mut s.variant,
                "algorithm" => &mut s.algorithm,
                "target" => &mut s.target,
                "operation" => &mut s.operation,
                _ => bail!(
                    "`{arg}`: `{item}` is no filter of a manifest's builds: give KEY=VALUE pairs separated by commas, KEY one of {} (e.g. `manifest.toml:variant=o3,target=native`)",
                    Self::KEYS.join(", ")
                ),
            };
            let value = value.trim();
            if value.is_empty() {
                bail!("`{arg}`: `{key}` needs a value (`{key}=...`)");
            }
            list.push(value.to_string());
        }
        Ok(s)
    }

    /// Whether it filters nothing: every build is kept.
    pub fn is_empty(&self) -> bool {
        self == &Selection::default()
    }
}

/// A key of a [`Selection`], its values, whether the manifest has a value, and what it has.
type SelectionCheck<'a> = (&'a str, &'a [String], &'a dyn Fn(&str) -> bool, String);

fn default_compiler() -> String {
    "cc".into()
}

use crate::name::bad_part as bad_name;

/// Flags whose value may follow as the next argument, which a manifest's `flags` take
/// joined to it (each string is one argument, and the compiler takes both forms).
const TAKE_A_VALUE: [&str; 11] = [
    "-I",
    "-D",
    "-U",
    "-L",
    "-l",
    "-x",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
];

fn check_flags(file: &Path, owner: &str, flags: &[String]) -> Result<()> {
    for (i, f) in flags.iter().enumerate() {
        let fix = if !f.starts_with('-') {
            match i.checked_sub(1).map(|p| flags[p].as_str()) {
                // `-I`, `inc`: the directory of a flag given as a string of its own.
                Some(before) if TAKE_A_VALUE.contains(&before) => {
                    format!("a flag's value goes in the same string: `{before}{f}`")
                }
                _ => "a flag starts with `-`".to_string(),
            }
        } else if f.contains(char::is_whitespace) {
            if f.starts_with("-I") {
                "a directory whose name holds a space goes in `include_dirs`".to_string()
            } else {
                "one flag a string (`-O2 -g` is two)".to_string()
            }
        } else if f.starts_with("-o") || f == "-c" {
            "cryptobench names the output and compiles and links in one step".to_string()
        } else {
            String::new()
        };
        if !fix.is_empty() {
            bail!("{}: {owner}: bad flag `{f}`: {fix}", file.display());
        }
        // The target's -march comes first on the command line: a later one would win, and
        // the build would be credited to a target it is not.
        if f.starts_with("-march=") || f.starts_with("-mcpu=") {
            bail!(
                "{}: {owner}: flag `{f}` would override the build's target (its -march), so its figures would be credited to a target it is not built for: name the CPU in `targets` instead",
                file.display()
            );
        }
    }
    Ok(())
}

/// A TOML error on one line: the file, where in it, and what is wrong (the parser's own
/// text quotes the line over several).
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> String {
    let at = e.span().map(|span| {
        let before = &text[..span.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
        format!("line {line}, column {column}: ")
    });
    let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    format!("{}: {}{message}", path.display(), at.unwrap_or_default())
}

/// Why the file at `path` (a manifest, or a file it names) is not one to read whole, or
/// `None`: it must be a regular file of at most 16 MiB, as no manifest or vectors file
/// nearly is. A FIFO or a device would be read without end (or until memory ran out).
/// One that cannot be looked at is `None`: reading it says why.
fn not_a_file_to_read(path: &Path) -> Option<&'static str> {
    const MOST: u64 = 16 << 20;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() <= MOST => None,
        Ok(m) if m.is_file() => Some("is larger than 16 MiB"),
        Ok(_) => Some("is not a file (a directory, a FIFO or a device)"),
        Err(_) => None,
    }
}

impl Manifest {
    /// Reads and checks the manifest at `path` ([`Manifest::from_toml`]); an error names
    /// the file.
    pub fn load(path: &Path) -> Result<Manifest> {
        if let Some(why) = not_a_file_to_read(path) {
            bail!("manifest `{}` {why}", path.display());
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read manifest `{}`", path.display()))?;
        Manifest::from_toml(&text, path)
    }

    /// The manifest `text`, read as the file at `path` (which its errors name, and
    /// against whose directory sources and include directories are looked for), checked.
    pub fn from_toml(text: &str, path: &Path) -> Result<Manifest> {
        let mut m: Manifest =
            toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", toml_error(path, text, &e)))?;
        m.path = path.to_path_buf();
        m.find_lines(text);
        m.read_vector_files()?;
        m.validate()?;
        m.share_known_answers();
        Ok(m)
    }

    /// Known answers belong to the algorithm: a variant without its own takes those of
    /// the first variant of the same algorithm and kind that has some (its `vectors`, an
    /// AEAD's `kat` file), and is checked against them itself. (Agreeing with a variant
    /// that has them would show nothing where that variant fails them, in a worker of its
    /// own.)
    fn share_known_answers(&mut self) {
        for i in 0..self.implementations.len() {
            let (algorithm, kind) = (
                &self.implementations[i].algorithm,
                self.implementations[i].kind,
            );
            let same = |o: &&ManifestImplementation| &o.algorithm == algorithm && o.kind == kind;
            let vectors = (self.implementations[i].vectors.is_empty())
                .then(|| {
                    (self.implementations.iter())
                        .filter(same)
                        .find(|o| !o.vectors.is_empty())
                        .map(|o| o.vectors.clone())
                })
                .flatten();
            let kat = (self.implementations[i].kat.is_none())
                .then(|| {
                    (self.implementations.iter())
                        .filter(same)
                        .find_map(|o| o.kat.clone())
                })
                .flatten();
            let imp = &mut self.implementations[i];
            if let Some(vectors) = vectors {
                imp.vectors = vectors;
            }
            if kat.is_some() {
                imp.kat = kat;
            }
        }
    }

    /// Where each `[[implementation]]` table and its `vectors` begin in `text`, for errors
    /// found after reading, which the TOML reader's own places do not cover.
    fn find_lines(&mut self, text: &str) {
        #[derive(serde::Deserialize)]
        struct Lines {
            #[serde(default)]
            implementation: Vec<toml::Spanned<Entry>>,
        }
        #[derive(serde::Deserialize)]
        struct Entry {
            vectors: Option<toml::Spanned<toml::Value>>,
        }
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        // Read once already: a second reading fails only where the first did.
        let Ok(lines) = toml::from_str::<Lines>(text) else {
            return;
        };
        (self.implementation_lines, self.vectors_lines) = (lines.implementation.iter())
            .map(|entry| {
                let vectors = entry.get_ref().vectors.as_ref();
                (
                    line_of(entry.span().start),
                    vectors.map(|v| line_of(v.span().start)),
                )
            })
            .unzip();
    }

    /// `FILE: line N` of the `n`th implementation's header, or `FILE` where not known.
    fn at_implementation(&self, n: usize) -> String {
        match self.implementation_lines.get(n) {
            Some(line) => format!("{}: line {line}", self.path.display()),
            None => self.path.display().to_string(),
        }
    }

    /// Each implementation's `vectors_file`, appended to its `vectors`.
    fn read_vector_files(&mut self) -> Result<()> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct VectorFile {
            vector: Vec<toml::Spanned<Vector>>,
        }
        let dir = self.dir();
        for imp in &mut self.implementations {
            let Some(file) = &imp.vectors_file else {
                continue;
            };
            let path = dir.join(file);
            if let Some(why) = not_a_file_to_read(&path) {
                bail!(
                    "{}: implementation `{}`: `vectors_file` `{}` {why}",
                    self.path.display(),
                    imp.variant,
                    path.display()
                );
            }
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "{}: implementation `{}`: cannot read `vectors_file` `{}`",
                    self.path.display(),
                    imp.variant,
                    path.display()
                )
            })?;
            let read: VectorFile = toml::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{} (a `vectors_file` holds [[vector]] tables of input, key, nonce, output and source)",
                    toml_error(&path, &text, &e)
                )
            })?;
            for spanned in read.vector {
                let line = text[..spanned.span().start].matches('\n').count() + 1;
                let mut v = spanned.into_inner();
                let origin = format!("{}:{line}", path.display());
                if v.source.is_empty() {
                    v.source = origin.clone();
                }
                v.origin = Some(origin);
                imp.vectors.push(v);
            }
        }
        Ok(())
    }

    /// The manifest's directory; `.` for a bare file name (whose parent is `""`, which
    /// would give the compiler an empty `-I`).
    pub fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// `path` as a message names it: from the manifest's directory where it lies in it
    /// (`avx2/api.h`), else as it is.
    pub fn shown(&self, path: &Path) -> String {
        let dir = self.dir();
        if let Ok(inside) = path.strip_prefix(&dir) {
            return inside.display().to_string();
        }
        if let (Ok(dir), Ok(path)) = (std::fs::canonicalize(&dir), std::fs::canonicalize(path))
            && let Ok(inside) = path.strip_prefix(&dir)
        {
            return inside.display().to_string();
        }
        path.display().to_string()
    }

    /// The sources `imp` compiles, as paths: its own, or the manifest's.
    pub fn sources_of(&self, imp: &ManifestImplementation) -> Vec<PathBuf> {
        let listed = imp.sources.as_ref().unwrap_or(&self.sources);
        listed.iter().map(|s| self.dir().join(s)).collect()
    }

    /// The header directories `imp` searches: its own, then the manifest's.
    pub fn include_dirs_of(&self, imp: &ManifestImplementation) -> Vec<PathBuf> {
        (imp.include_dirs.iter().chain(&self.include_dirs))
            .map(|d| self.dir().join(d))
            .collect()
    }

    fn validate(&self) -> Result<()> {
        let file = &self.path;
        if let Some(why) = bad_name(&self.name) {
            bail!("{}: `name` {why}", file.display());
        }
        for imp in &self.implementations {
            let owner = format!("implementation `{}`", imp.variant);
            let (sources, whose) = match &imp.sources {
                Some(own) => (own, owner.as_str()),
                None => (&self.sources, "the manifest"),
            };
            if sources.is_empty() {
                bail!(
                    "{}: {owner} has no sources: list the C or assembly files to compile in the manifest's `sources` or in the implementation's own",
                    file.display()
                );
            }
            for s in sources {
                let p = self.dir().join(s);
                if !p.is_file() {
                    bail!(
                        "{}: source `{}` not found ({whose}'s; looked for {})",
                        file.display(),
                        s.display(),
                        p.display()
                    );
                }
            }
        }
        let own_dirs = (self.implementations.iter())
            .flat_map(|imp| imp.include_dirs.iter().map(move |d| (d, Some(imp))));
        for (d, owner) in own_dirs.chain(self.include_dirs.iter().map(|d| (d, None))) {
            if !self.dir().join(d).is_dir() {
                let of = owner.map_or(String::new(), |imp| {
                    format!(" of implementation `{}`", imp.variant)
                });
                bail!(
                    "{}: include dir `{}`{of} not found",
                    file.display(),
                    d.display()
                );
            }
        }
        if self.targets.is_empty() {
            bail!(
                "{}: `targets` is empty: name at least one, e.g. [\"native\"]",
                file.display()
            );
        }
        let mut listed = std::collections::BTreeSet::new();
        for t in &self.targets {
            target::find(t).with_context(|| format!("{}", file.display()))?;
            if !listed.insert(t) {
                bail!(
                    "{}: target `{t}` is listed twice in `targets`",
                    file.display()
                );
            }
        }
        check_flags(file, "flags", &self.flags)?;
        if self.implementations.is_empty() {
            bail!("{}: no [[implementation]] declared", file.display());
        }
        let mut seen = std::collections::BTreeMap::new();
        let host = target::host_flags();
        for (n, i) in self.implementations.iter().enumerate() {
            let owner = format!("implementation `{}`", i.variant);
            for (field, value) in [("variant", &i.variant), ("algorithm", &i.algorithm)] {
                if let Some(why) = bad_name(value) {
                    bail!(
                        "{}: [[implementation]] number {} (of {}): `{field}` {why}",
                        file.display(),
                        n + 1,
                        self.implementations.len()
                    );
                }
            }
            if let Some(&first) = seen.get(&(i.algorithm.clone(), i.variant.clone())) {
                let first = match self.implementation_lines.get(first) {
                    Some(line) => format!(" (first at line {line})"),
                    None => String::new(),
                };
                bail!(
                    "{}: {owner} of `{}` is declared twice{first}",
                    self.at_implementation(n),
                    i.algorithm
                );
            }
            seen.insert((i.algorithm.clone(), i.variant.clone()), n);
            check_flags(file, &owner, &i.flags)?;
            if let Some(f) = i.requires.iter().find(|f| !target::known_feature(f, &host)) {
                bail!(
                    "{}: {owner}: unknown CPU feature `{f}` in `requires`; known features (as /proc/cpuinfo names them): {}",
                    file.display(),
                    target::KNOWN_FEATURES.join(", ")
                );
            }
            if let Some(k) = i.sizes.keys().find(|k| !API_NAMES.contains(&k.as_str())) {
                bail!(
                    "{}: {owner}: `sizes` names `{k}`, which is not an api.h size cryptobench reads ({})",
                    file.display(),
                    API_NAMES.join(", ")
                );
            }
            if i.kat.is_some() && i.kind != CKind::Aead {
                bail!(
                    "{}: {owner}: `kat` files are read for aead implementations only",
                    file.display()
                );
            }
            for (j, v) in i.vectors.iter().enumerate() {
                v.fits(i.kind).map_err(|why| match &v.origin {
                    Some(origin) => anyhow::anyhow!("{origin}: [[vector]] of {owner}: {why}"),
                    None => {
                        let at = match self.vectors_lines.get(n).copied().flatten() {
                            Some(line) => format!("{}: line {line}", file.display()),
                            None => file.display().to_string(),
                        };
                        anyhow::anyhow!("{at}: {owner}: `vectors[{j}]`: {why}")
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Keeps the implementations and targets `selection` names; a value that names none
    /// of the manifest's is refused, with those it has.
    pub fn select(&mut self, selection: &Selection) -> Result<()> {
        let file = self.path.display().to_string();
        let distinct = |values: Vec<String>| {
            let mut v: Vec<String> = Vec::new();
            for x in values {
                if !v.contains(&x) {
                    v.push(x);
                }
            }
            v.join(", ")
        };
        let variants = distinct(
            self.implementations
                .iter()
                .map(|i| i.variant.clone())
                .collect(),
        );
        let algorithms = distinct(
            self.implementations
                .iter()
                .map(|i| i.algorithm.clone())
                .collect(),
        );
        let operations = distinct(
            self.implementations
                .iter()
                .flat_map(|i| {
                    super::operations_of(self, i)
                        .iter()
                        .map(|o| o.name.to_string())
                })
                .collect(),
        );
        let checks: [SelectionCheck; 4] = [
            (
                "variant",
                &selection.variant,
                &|v| self.implementations.iter().any(|i| i.variant == v),
                format!("its variants: {variants}"),
            ),
            (
                "algorithm",
                &selection.algorithm,
                &|v| self.implementations.iter().any(|i| i.algorithm == v),
                format!("its algorithms: {algorithms}"),
            ),
            (
                "target",
                &selection.target,
                &|v| self.targets.iter().any(|t| t == v),
                format!("its targets: {}", self.targets.join(", ")),
            ),
            (
                "operation",
                &selection.operation,
                &|v| operations.split(", ").any(|o| o == v),
                format!("its operations: {operations}"),
            ),
        ];
        for (key, values, found, has) in checks {
            if let Some(v) = values.iter().find(|v| !found(v)) {
                bail!("{file}: `{key}={v}` matches nothing in this manifest; {has}");
            }
        }
        let keeps = |wanted: &[String], v: &str| wanted.is_empty() || wanted.iter().any(|w| w == v);
        let kept: Vec<ManifestImplementation> = self
            .implementations
            .iter()
            .filter(|i| {
                keeps(&selection.variant, &i.variant) && keeps(&selection.algorithm, &i.algorithm)
            })
            .filter(|i| {
                selection.operation.is_empty()
                    || super::operations_of(self, i)
                        .iter()
                        .any(|o| keeps(&selection.operation, o.name))
            })
            .cloned()
            .collect();
        if kept.is_empty() {
            bail!(
                "{file}: the filters together match no [[implementation]] (variant, algorithm, operation); its variants: {variants}; its algorithms: {algorithms}; its operations: {operations}"
            );
        }
        self.implementations = kept;
        self.targets.retain(|t| keeps(&selection.target, t));
        Ok(())
    }

    /// The manifest's targets, looked up (they were checked when it was loaded).
    pub fn targets(&self) -> Vec<Target> {
        self.targets
            .iter()
            .map(|t| target::find(t).expect("validated"))
            .collect()
    }

    /// Resolve a KAT file name against `kat_dir` (or the `--kat-dir` override).
    pub fn kat_path(&self, name: &str, kat_dir_override: Option<&Path>) -> PathBuf {
        match kat_dir_override {
            Some(d) => d.join(name),
            None => self
                .dir()
                .join(self.kat_dir.clone().unwrap_or_default())
                .join(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, manifest: &str) -> PathBuf {
        std::fs::write(dir.join("a.c"), "int x;").unwrap();
        let p = dir.join("manifest.toml");
        std::fs::write(&p, manifest).unwrap();
        p
    }

    const GOOD: &str = r#"
name = "demo"
sources = ["a.c"]
targets = ["x86-64", "native"]
[[implementation]]
variant = "o2"
algorithm = "sha-256"
kind = "hash"
flags = ["-O2"]
"#;

    #[test]
    fn a_good_manifest_loads() {
        let d = tempfile::tempdir().unwrap();
        let m = Manifest::load(&write(d.path(), GOOD)).unwrap();
        assert_eq!(m.implementations[0].kind, CKind::Hash);
        assert_eq!(m.compiler, "cc");
        assert_eq!(m.targets().len(), 2);
    }

    #[test]
    fn the_kind_list_shows_for_a_scalar_multiplication_is_taken_too() {
        let dh = GOOD.replace("kind = \"hash\"", "kind = \"dh\"");
        let m: Manifest = toml::from_str(&dh).unwrap();
        assert_eq!(m.implementations[0].kind, CKind::Scalarmult);
    }

    #[test]
    fn a_bare_manifest_name_means_the_current_directory() {
        let mut m: Manifest = toml::from_str(GOOD).unwrap();
        m.path = PathBuf::from("manifest.toml");
        assert_eq!(m.dir(), PathBuf::from("."));
        let args = super::super::compile::arguments(&m, &m.implementations[0], &m.targets()[0]);
        assert!(args.contains(&"-I.".to_string()), "{args:?}");
        assert!(!args.contains(&"-I".to_string()), "{args:?}");
        m.path = PathBuf::from("sub/manifest.toml");
        assert_eq!(m.dir(), PathBuf::from("sub"));
    }

    #[test]
    fn every_manifest_error_names_the_file_and_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let cases = [
            (
                GOOD.replace("a.c\"]", "missing.c\"]"),
                "source `missing.c` not found",
            ),
            (
                GOOD.replace("kind = \"hash\"", "kind = \"hash\"\ncolour = 1"),
                "unknown field `colour`",
            ),
            (
                GOOD.replace("\"x86-64\"", "\"pentium9\""),
                "unknown target `pentium9`",
            ),
            (
                GOOD.replace("[\"-O2\"]", "[\"O2 -g\"]"),
                "bad flag `O2 -g`: a flag starts with `-`",
            ),
            (
                GOOD.replace("[\"-O2\"]", "[\"-O2 -g\"]"),
                "bad flag `-O2 -g`: one flag a string (`-O2 -g` is two)",
            ),
            (
                GOOD.replace("[\"-O2\"]", "[\"-Imy inc\"]"),
                "bad flag `-Imy inc`: a directory whose name holds a space goes in `include_dirs`",
            ),
            (
                GOOD.replace("[\"-O2\"]", "[\"-I\", \"inc\"]"),
                "bad flag `inc`: a flag's value goes in the same string: `-Iinc`",
            ),
            (
                GOOD.replace("[\"-O2\"]", "[\"-c\"]"),
                "bad flag `-c`: cryptobench names the output and compiles and links in one step",
            ),
            (
                GOOD.replace("\"native\"]", "\"native\", \"x86-64\"]"),
                "target `x86-64` is listed twice in `targets`",
            ),
            (
                GOOD.replace(
                    "kind = \"hash\"",
                    "kind = \"hash\"\nrequires = [\"avx9000\"]",
                ),
                "implementation `o2`: unknown CPU feature `avx9000` in `requires`; known features",
            ),
            (
                GOOD.replace(
                    "kind = \"hash\"",
                    "kind = \"hash\"\nsizes = { CRYPTO_BYTES = 32, CRYPTO_BYTEZ = 32 }",
                ),
                "implementation `o2`: `sizes` names `CRYPTO_BYTEZ`, which is not an api.h size",
            ),
            (
                GOOD.replace("kind = \"hash\"", "kind = \"sponge\""),
                "unknown variant `sponge`",
            ),
            (
                GOOD.replace("name = \"demo\"", "name = \"a/b\""),
                "`name` must be non-empty",
            ),
            ("name = ".to_string(), "manifest.toml"),
        ];
        for (text, expect) in cases {
            let err = format!("{:#}", Manifest::load(&write(d.path(), &text)).unwrap_err());
            assert!(err.contains(expect), "expected `{expect}` in: {err}");
            assert!(err.contains("manifest.toml"), "file not named: {err}");
            assert!(!err.contains('\n'), "not one line: {err}");
        }
        // A parse error says where, as the parser's quoted excerpt did over five lines.
        let text = GOOD.replace("kind = \"hash\"", "kind = \"hash\"\ncolour = 1");
        let line = 1 + text[..text.find("colour").unwrap()].matches('\n').count();
        let err = format!("{:#}", Manifest::load(&write(d.path(), &text)).unwrap_err());
        assert!(
            err.contains(&format!(
                "manifest.toml: line {line}, column 1: unknown field `colour`"
            )),
            "{err}"
        );
        let err = format!(
            "{:#}",
            Manifest::load(&d.path().join("nope.toml")).unwrap_err()
        );
        assert!(
            err.contains("cannot read manifest") && err.contains("nope.toml"),
            "{err}"
        );
        // Read whole, a manifest must be a file of sane size: a directory, or one past
        // 16 MiB (sparse here), is refused before it is read.
        let err = format!("{:#}", Manifest::load(d.path()).unwrap_err());
        assert!(err.contains("is not a file"), "{err}");
        let big = d.path().join("big.toml");
        std::fs::File::create(&big)
            .unwrap()
            .set_len((16 << 20) + 1)
            .unwrap();
        let err = format!("{:#}", Manifest::load(&big).unwrap_err());
        assert!(
            err.contains("manifest `") && err.contains("big.toml` is larger than 16 MiB"),
            "{err}"
        );
    }
}
