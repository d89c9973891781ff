//! A compiled C variant as a catalog [`Implementation`]: its correctness gate and its
//! prepared calls through the SUPERCOP function pointers.
//!
//! Each kind has a file of its own: its [`KindInfo`], what is known before a build is
//! loaded, and its `Api`, the functions a build is loaded as and what the gate and the
//! timed calls do with them. [`info`] is the one place that names them all.

mod aead;
mod core;
mod hash;
mod kem;
mod scalarmult;
mod stream;
mod xof;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{Context, Result};

use super::compile::{API_NAMES, API_SYMBOL};
use super::crash_note;
use super::library::Library;
use super::manifest::{CKind, Vector};
use super::randomness::Hook;
use crate::catalog::{AfterTiming, Call, Implementation, Kind, Mismatch, Operation, PrepareError};
use crate::name::ImplName;
use crate::record::{Estimate, Param, Params};

/// Everything a worker needs to load one compiled variant; travels in the worker request.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CSpec {
    /// The manifest's `name`: the provider part of the implementation's name.
    pub provider: String,
    /// The algorithm the build computes, as the manifest names it (e.g. `sha-256`).
    pub algorithm: String,
    /// The manifest implementation's `variant`: which flags and sources it was built with.
    pub variant: String,
    /// The target it was compiled for (a `-march` value, or `native`).
    pub target: String,
    /// Which SUPERCOP API the build exports: how it is loaded, checked and timed.
    pub kind: CKind,
    /// The compiled shared object, in the build cache.
    pub library: PathBuf,
    /// Why this CPU cannot run the build, if it cannot.
    pub unsupported: Option<String>,
    /// What the compiler said, where the build did not compile and the run went on
    /// without it (`--keep-going`): its cases fail with that, and nothing is loaded.
    pub not_built: Option<String>,
    /// The NIST LWC known-answer file the gate checks an aead build against; `None`
    /// where the manifest names none or it was not found.
    pub kat: Option<PathBuf>,
    /// A check that could not be run (e.g. the KAT file is missing), said in the report.
    pub caveats: Vec<String>,
    /// Known answers from the manifest: its `vectors` and its `vectors_file`.
    pub vectors: Vec<Vector>,
    /// The `api.h` sizes the manifest says the build must have (its `sizes`).
    pub expected_sizes: BTreeMap<String, u64>,
    /// The other builds of the same algorithm this one is compared with. As built, every
    /// other runnable one (the candidates); in the gate's worker, those of them that
    /// passed the gate alone ([`gate_peers`](crate::cimpl::gate_peers)); none where it is
    /// checked alone or timed.
    pub peers: Vec<CSpec>,
    /// The llvm-mca estimate, when asked for (`--estimate`).
    pub estimate: Option<Estimate>,
    /// Independent inputs per call (`CRYPTO_LANES` of an N-way XOF; 1 otherwise).
    #[serde(default = "one_lane")]
    pub lanes: usize,
    /// The message lengths (`len`) the run times it at: the gate checks those of them
    /// its own lengths leave out (`--sizes 4096,2MiB`), so that no length is timed whose
    /// output was not compared.
    #[serde(default)]
    pub timed_lengths: Vec<usize>,
    /// Whether the compiler held the build's functions to the API's prototypes: every
    /// source is C or C++, compiled with them declared, and no library its flags link
    /// could define one instead. A crash or a hang then points at something else.
    #[serde(default)]
    pub prototypes_checked: bool,
    /// The `api.h` the build's sizes were read from, as its refusals name it (from the
    /// manifest's directory where it lies in it: `avx2/api.h`).
    #[serde(default = "api_h")]
    pub api_h: String,
    /// The compiler the manifest names (`compiler`).
    #[serde(default)]
    pub compiler: String,
    /// The first line of its `--version`; empty where it was not read.
    #[serde(default)]
    pub compiler_version: String,
    /// The flags the build was compiled with, as its run records them
    /// ([`compile::recorded_flags`](super::compile::recorded_flags)).
    #[serde(default)]
    pub flags: Vec<String>,
}

/// What a build's `api.h` is called before it is built, or where the compiler named none.
pub const API_H: &str = "api.h";

fn api_h() -> String {
    API_H.to_string()
}

fn one_lane() -> usize {
    1
}

impl CSpec {
    /// `provider/algorithm/variant@target`, the name users filter on.
    pub fn name(&self) -> String {
        ImplName::new(&self.provider, &self.algorithm)
            .with_variant(&self.variant)
            .at(&self.target)
            .to_string()
    }

    /// How the build was compiled, as its run records it.
    pub fn c_build(&self) -> crate::record::CBuild {
        crate::record::CBuild {
            implementation: self.name(),
            compiler: self.compiler.clone(),
            version: self.compiler_version.clone(),
            flags: self.flags.clone(),
            estimated_function: info(self.kind).estimated.to_string(),
            estimated_operation: (info(self.kind).estimated_operation)(self).to_string(),
        }
    }
}

/// A kind before any build of it is loaded: the cases its builds get, what their
/// `api.h` must define, and how to load one.
pub struct KindInfo {
    /// The catalog's kind, which C and Rust implementations share.
    pub kind: Kind,
    /// The algorithms the gate has known answers for, each with what is known of it.
    known: fn() -> Vec<KnownAlgorithm>,
    /// The Rust catalog's operations for a build, so that C and Rust implementations
    /// share rows.
    pub operations: fn(&CSpec) -> &'static [Operation],
    /// The `api.h` sizes the kind cannot do without: the buffers the gate and the timed
    /// calls give its functions.
    required_sizes: &'static [&'static str],
    /// The vector fields whose length an `api.h` size fixes: the functions read and write
    /// that many bytes whatever a vector gives.
    vector_sizes: &'static [(&'static str, &'static str)],
    /// The functions a build of the kind must export.
    pub functions: &'static [&'static str],
    /// Their prototypes, as docs/c-api.md gives them and cryptobench calls them, in the
    /// order of [`KindInfo::functions`]: every source of a build is compiled with them
    /// declared, so that one declared otherwise does not compile.
    pub prototypes: &'static [&'static str],
    /// How a manifest gives a build of the kind known answers, as the advice to builds
    /// that disagree says it; `None` where it cannot (their variants are checked by round
    /// trips and agreement only).
    known_answers_from: Option<&'static str>,
    /// The function whose code a static estimate reads.
    pub estimated: &'static str,
    /// The operation whose timed call is that function (`encaps` for `crypto_kem_enc`):
    /// the one operation of a build its estimate is of.
    pub estimated_operation: fn(&CSpec) -> &'static str,
    /// The parameters of its cases, given the lengths asked for.
    pub params: fn(&[u64]) -> Vec<Params>,
    load: fn(&CSpec) -> Result<Box<dyn Loaded>>,
}

/// `api.h` macros and the sizes an algorithm gives them.
type ApiSizes = Vec<(&'static str, usize)>;

/// What cryptobench's own reference of an algorithm outputs for a manifest vector's
/// fields; `None` where it has none for them.
type Reference = Box<dyn Fn(&Vector) -> Option<Vec<u8>>>;

/// An algorithm the gate has known answers for ([`KindInfo::known`]).
struct KnownAlgorithm {
    /// Its name, as a manifest's `algorithm` must spell it.
    name: &'static str,
    /// The `api.h` sizes it has, one list per form of it (ChaCha20 has two nonces).
    sizes: Vec<ApiSizes>,
    /// Its reference, where the kind's known answers are manifest `vectors`.
    reference: Option<Reference>,
}

/// The algorithm of `kind` the gate knows by the name `algorithm`, if any.
fn known(kind: CKind, algorithm: &str) -> Option<KnownAlgorithm> {
    (info(kind).known)()
        .into_iter()
        .find(|k| k.name == algorithm)
}

/// The one `match` on the kinds.
pub fn info(kind: CKind) -> &'static KindInfo {
    match kind {
        CKind::Hash => &hash::INFO,
        CKind::Stream => &stream::INFO,
        CKind::Aead => &aead::INFO,
        CKind::Core => &core::INFO,
        CKind::Kem => &kem::INFO,
        CKind::Scalarmult => &scalarmult::INFO,
        CKind::Xof => &xof::INFO,
    }
}

/// [`KindInfo::params`] of a kind timed at every length.
fn per_length(lengths: &[u64]) -> Vec<Params> {
    lengths
        .iter()
        .map(|&l| Params::new().with(Param::Len, l))
        .collect()
}

/// [`KindInfo::params`] of a kind with one fixed-size case per operation.
fn fixed_size(_: &[u64]) -> Vec<Params> {
    vec![Params::new()]
}

/// The largest `api.h` size taken: far above any key, signature or public key in use
/// (Classic McEliece's largest public key has 1.4 MB).
const MAX_API_SIZE: u64 = 64 << 20;

/// Whether a build's `api.h` sizes (0 where a macro is undefined) give what its kind
/// needs and what the manifest expects; if not, why, naming `api_h` (the file they were
/// read from), the macro and the values.
pub fn check_sizes(
    kind: CKind,
    expected: &BTreeMap<String, u64>,
    sizes: &BTreeMap<&str, u64>,
    api_h: &str,
) -> Result<(), String> {
    // A negative define reads as a huge one: the buffers made from it could not be
    // allocated, and the worker would die in the allocator, not say why.
    if let Some((k, v)) = sizes.iter().find(|&(_, &v)| v > MAX_API_SIZE) {
        return Err(format!(
            "`{api_h}` gives {k} = {}: no size of the C API is negative or above {} MiB",
            *v as i64,
            MAX_API_SIZE >> 20
        ));
    }
    for (k, want) in expected {
        let got = sizes.get(k.as_str()).copied();
        if got != Some(*want) {
            return Err(match got {
                None | Some(0) => format!(
                    "`{api_h}` defines no {k} (or defines it as 0), the manifest says {want}; make them agree"
                ),
                Some(g) => {
                    format!("`{api_h}` gives {k} = {g}, the manifest says {want}; make them agree")
                }
            });
        }
    }
    for k in info(kind).required_sizes {
        if sizes.get(k).copied().unwrap_or(0) == 0 {
            let kind = format!("{kind:?}").to_lowercase();
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            return Err(format!(
                "`{api_h}` defines no {k} (or defines it as 0); {article} {kind} build needs it (or is `kind = \"{kind}\"` not what this code is?)"
            ));
        }
    }
    Ok(())
}

/// Whether a build named after an algorithm the gate knows has that algorithm's `api.h`
/// sizes; if not, the sizes at fault and the remedy. A toy cipher named `aes-128-gcm`
/// with an 8-byte tag could be checked against nothing of AES-GCM's, and would be
/// measured in the rows of the real one: refused instead, as a misnamed build. `api_h`
/// names the file the sizes were read from.
pub fn check_known_sizes(
    kind: CKind,
    algorithm: &str,
    sizes: &BTreeMap<&str, u64>,
    api_h: &str,
) -> Result<(), String> {
    let forms = known(kind, algorithm).map_or_else(Vec::new, |k| k.sizes);
    let off = |form: &ApiSizes| -> Vec<(&'static str, usize, u64)> {
        (form.iter())
            .map(|&(name, want)| (name, want, sizes.get(name).copied().unwrap_or(0)))
            .filter(|&(_, want, got)| want as u64 != got)
            .collect()
    };
    let mut misses: Vec<_> = forms.iter().map(off).collect();
    misses.sort_by_key(Vec::len);
    let Some(closest) = misses.first().filter(|m| !m.is_empty()) else {
        return Ok(());
    };
    let has: Vec<String> = (closest.iter())
        .map(|(name, want, _)| format!("{name} = {want}"))
        .collect();
    let says: Vec<String> = (closest.iter())
        .map(|&(_, _, got)| match got {
            0 => "none".to_string(),
            got => got.to_string(),
        })
        .collect();
    let others: Vec<String> = (misses[1..].iter())
        .map(|m| {
            let sizes: Vec<String> = (m.iter())
                .map(|(name, want, _)| format!("{name} = {want}"))
                .collect();
            format!(" (or, in its other form, {})", sizes.join(" and "))
        })
        .collect();
    Err(format!(
        "`{algorithm}` has {}{}; this build's `{api_h}` says {}: name the algorithm otherwise \
         if the build is not {algorithm}, else correct `{api_h}`",
        has.join(" and "),
        others.concat(),
        says.join(" and "),
    ))
}

/// Whether the manifest's `vectors` for a known algorithm agree with cryptobench's own
/// reference of it: a wrong vector would fail every build, each blamed for it.
pub fn check_vectors_against_reference(
    kind: CKind,
    algorithm: &str,
    vectors: &[Vector],
) -> Result<(), String> {
    let Some(reference) = known(kind, algorithm).and_then(|k| k.reference) else {
        return Ok(());
    };
    for (i, v) in vectors.iter().enumerate() {
        let Some(want) = reference(v) else {
            continue;
        };
        if want != Vector::bytes(&v.output) {
            let which = match &v.origin {
                Some(origin) => format!("[[vector]] at {origin}"),
                None => format!("`vectors[{i}]`"),
            };
            return Err(format!(
                "{which} ({}): its `output` is not {algorithm}'s: cryptobench's reference gives {} for its fields; correct the vector",
                v.source(),
                hex::encode(&want)
            ));
        }
    }
    Ok(())
}

/// Whether the manifest's `vectors` fit a build of `kind` with these `api.h` sizes; if
/// not, the first field that does not, by index and lengths. The C functions read and
/// write the api.h sizes whatever a vector gives, so a shorter field would be read past
/// its end (a crash, or wrong output) and the manifest's mistake blamed on the build.
/// `api_h` names the file the sizes were read from.
pub fn check_vectors(
    kind: CKind,
    vectors: &[Vector],
    sizes: &BTreeMap<&str, u64>,
    api_h: &str,
) -> Result<(), String> {
    for (i, v) in vectors.iter().enumerate() {
        for &(field, name) in info(kind).vector_sizes {
            let hex = v.field(field);
            let want = sizes.get(name).copied().unwrap_or(0);
            let got = hex.len() as u64 / 2;
            if got != want {
                let which = match &v.origin {
                    Some(origin) => format!("[[vector]] at {origin}"),
                    None => format!("`vectors[{i}]`"),
                };
                return Err(format!(
                    "{which}: `{field}` has {got} byte{}, `{api_h}` gives {name} = {want}; \
                     give it as {} hex digits",
                    if got == 1 { "" } else { "s" },
                    2 * want
                ));
            }
        }
    }
    Ok(())
}

/// A kind's functions as loaded from a build, and what the gate and the timed calls do
/// with them.
trait Api: Sized + Send + Sync + 'static {
    /// The kind's functions in `lib`. The SUPERCOP API fixes their C signatures; a
    /// library that exports them with other types breaks that contract, which is what
    /// running it in an isolated worker is for.
    fn load(lib: &Library) -> Result<Self>;
    /// Whether the catalog has known answers or a reference to check `build` against
    /// (the manifest's own vectors count for every kind, in [`Loaded::caveats`]).
    fn has_reference(build: &Build<Self>) -> bool;
    fn verify(build: &Build<Self>) -> Result<(), Mismatch>;
    /// The timed call; `wanted.operation` is one of the kind's.
    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError>;
}

/// [`KindInfo::load`] of the kind whose functions are `A`.
fn load<A: Api>(spec: &CSpec) -> Result<Box<dyn Loaded>> {
    Ok(Box::new(Build::<A>::load(spec)?))
}

/// A loaded build of the kind whose functions are `A`.
struct Build<A> {
    spec: CSpec,
    name: String,
    /// Keeps the shared object mapped while `api` points into it.
    _library: Library,
    sizes: BTreeMap<&'static str, u64>,
    api: A,
    /// Where the gate feeds `randombytes` known bytes.
    randomness: Hook,
    /// What the gate could not check, found while it ran (e.g. a build with its own
    /// `randombytes` cannot be fed a known-answer test's seeds).
    gate_notes: Mutex<Vec<String>>,
    peers: Vec<Build<A>>,
    /// Whether it is loaded as another build's peer: its calls are then comparisons.
    peer: bool,
}

impl<A: Api> Build<A> {
    /// Load the shared object (in a worker: this runs the library's constructors).
    fn load(spec: &CSpec) -> Result<Build<A>> {
        let name = spec.name();
        let lib = Library::open(&spec.library)?;
        let table = lib.symbol(API_SYMBOL)? as *const u64;
        let mut sizes = BTreeMap::new();
        for (i, n) in API_NAMES.iter().enumerate() {
            // SAFETY: the build's generated probe defines an array of API_NAMES.len() u64s.
            sizes.insert(*n, unsafe { *table.add(i) });
        }
        // Without the case's name: the runner says which case could not be loaded.
        check_sizes(spec.kind, &spec.expected_sizes, &sizes, &spec.api_h)
            .map_err(anyhow::Error::msg)?;
        check_known_sizes(spec.kind, &spec.algorithm, &sizes, &spec.api_h)
            .map_err(anyhow::Error::msg)?;
        let api = A::load(&lib)?;
        let randomness = Hook::find(&lib)?;
        let peers = spec
            .peers
            .iter()
            .map(|p| {
                let mut peer =
                    Build::load(p).with_context(|| format!("loading the variant {}", p.name()))?;
                peer.peer = true;
                Ok(peer)
            })
            .collect::<Result<_>>()?;
        Ok(Build {
            spec: spec.clone(),
            name,
            _library: lib,
            sizes,
            api,
            randomness,
            gate_notes: Default::default(),
            peers,
            peer: false,
        })
    }
}

impl<A> Build<A> {
    fn size(&self, n: &str) -> usize {
        self.sizes.get(n).copied().unwrap_or(0) as usize
    }

    /// The manifest's known answers, each computed by `output` (from the vector's fields)
    /// and compared with the vector's `output`.
    fn known_answers(
        &self,
        mut output: impl FnMut(&Vector) -> Result<Vec<u8>, String>,
    ) -> Result<(), Mismatch> {
        check_vectors(
            self.spec.kind,
            &self.spec.vectors,
            &self.sizes,
            &self.spec.api_h,
        )
        .map_err(|why| Mismatch::new("manifest vectors", why))?;
        for v in &self.spec.vectors {
            let got = output(v).map_err(refused(v.source()))?;
            Mismatch::check_bytes(v.source(), &got, &Vector::bytes(&v.output))?;
        }
        Ok(())
    }
}

impl<A> Build<A> {
    /// The message lengths a hash or a stream cipher is called at and compared with its
    /// peers: the gate's own for blocks of `block_len` bytes (`boundary_lengths`), which
    /// a known algorithm without peers has met already against its reference, then those
    /// the run times beyond them (the second list), which it has not.
    fn lengths_to_compare(&self, block_len: usize, known: bool) -> (Vec<usize>, Vec<usize>) {
        let gate = crate::catalog::kinds::boundary_lengths(block_len);
        let beyond = self.timed_beyond(&gate);
        let lengths = if known && self.peers.is_empty() {
            beyond.clone()
        } else {
            gate.into_iter().chain(beyond.iter().copied()).collect()
        };
        (lengths, beyond)
    }

    /// The lengths the run times that the gate's own (`gate`) leave out, ascending.
    fn timed_beyond(&self, gate: &[usize]) -> Vec<usize> {
        let mut beyond: Vec<usize> = (self.spec.timed_lengths.iter())
            .filter(|l| !gate.contains(l))
            .copied()
            .collect();
        beyond.sort_unstable();
        beyond.dedup();
        beyond
    }
}

impl<A: Api> Build<A> {
    /// Whether anything but its peers says what this build must output: the manifest's
    /// vectors, or the kind's reference (known answers, a KAT file).
    fn has_known_answers(&self) -> bool {
        !self.spec.vectors.is_empty() || A::has_reference(self)
    }

    /// Whether `ours` is what a peer variant gave for the same input (`theirs`; `what`
    /// names the input and the peer). Without known answers a disagreement does not say
    /// which of the two is wrong, and the refusal says so: each is refused by the other.
    fn agrees(&self, what: &str, ours: &[u8], theirs: &[u8]) -> Result<(), Mismatch> {
        Mismatch::check_bytes(what, ours, theirs).map_err(|mut m| {
            if !self.has_known_answers() {
                m.detail.push_str(&disagreement(self.spec.kind));
            }
            m
        })
    }
}

/// What a refusal of builds of `kind` that disagree without known answers adds: that
/// none is timed, and how to have the wrong one named, where the manifest can.
fn disagreement(kind: CKind) -> String {
    let advice = match info(kind).known_answers_from {
        Some(how) => format!("give the algorithm {how} in the manifest"),
        None => {
            let kind = format!("{kind:?}").to_lowercase();
            format!(
                "a manifest gives a {kind} no known answers: check the variants against the algorithm's reference implementation"
            )
        }
    };
    format!(
        "; the variants disagree and no known answers say which is right, so none is timed ({advice})"
    )
}

/// What the gate checks a build of `algorithm` against, said before anything is built
/// (`list`): the catalog's known answers for it, the manifest's vectors, its KAT file, or
/// else only the other variants of the manifest (checked in part).
pub fn checked_against(kind: CKind, algorithm: &str, vectors: usize, kat: Option<&str>) -> String {
    let mut against = Vec::new();
    // A build of this name at other sizes is refused when built ([`check_known_sizes`]).
    if known_name(kind, algorithm) {
        against.push(format!("known answers for {algorithm}"));
    }
    if vectors > 0 {
        let s = if vectors == 1 { "" } else { "s" };
        against.push(format!("{vectors} manifest vector{s}"));
    }
    if let Some(kat) = kat {
        against.push(format!("KAT file {kat}"));
    }
    if against.is_empty() {
        let hint = near_miss(kind, algorithm)
            .map(|known| format!(" (known answers exist for `{known}`)"))
            .unwrap_or_default();
        return format!("its variants only{hint}");
    }
    against.join(", ")
}

/// Whether the catalog has known answers for an algorithm of `kind` called `algorithm`
/// (a core or stream cipher's also need its sizes to fit).
fn known_name(kind: CKind, algorithm: &str) -> bool {
    known(kind, algorithm).is_some()
}

/// Whether the gate has answers to check `spec` against beyond its other variants:
/// the manifest's vectors, a KAT file, or the catalog's known answers for its algorithm.
pub fn has_known_answers(spec: &CSpec) -> bool {
    !spec.vectors.is_empty() || spec.kat.is_some() || known_name(spec.kind, &spec.algorithm)
}

/// The algorithm of `kind` with known answers whose name `name` misspells: the same
/// letters and digits, in other case or punctuation (`sha256`, `SHA-256`, `ml_kem_768`).
fn near_miss(kind: CKind, name: &str) -> Option<&'static str> {
    let plain = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    (info(kind).known)()
        .into_iter()
        .map(|known| known.name)
        .find(|known| *known != name && plain(known) == plain(name))
}

/// A loaded build, whatever its kind.
trait Loaded: Send + Sync {
    fn verify(&self) -> Result<(), Mismatch>;
    /// What the gate did not or could not check, found before or while it ran.
    fn caveats(&self) -> Vec<String>;
    fn prepare(&self, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError>;
}

impl<A: Api> Loaded for Build<A> {
    fn verify(&self) -> Result<(), Mismatch> {
        A::verify(self)
    }

    fn caveats(&self) -> Vec<String> {
        let mut c = Vec::new();
        // Agreeing with another variant of the same source only shows the compilers agree:
        // without known answers the first variant is checked against nothing, so the
        // others are not either.
        if !self.has_known_answers() {
            // `sha256` for `sha-256`: the one spelling the gate knows, said, or the build
            // is checked less than it could be without a word.
            let spelled = near_miss(self.spec.kind, &self.spec.algorithm)
                .map(|known| {
                    format!(
                        " (cryptobench has known answers for `{known}`: is `{}` that? name it so to have them checked)",
                        self.spec.algorithm
                    )
                })
                .unwrap_or_default();
            let agrees = if self.peers.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = self.peers.iter().map(|p| p.name.as_str()).collect();
                format!("; agrees with {}", names.join(", "))
            };
            c.push(format!(
                "{}: no known answers or independent implementation to check against{spelled}{agrees}",
                self.name
            ));
        }
        c.extend(
            self.gate_notes
                .lock()
                .expect("not poisoned")
                .iter()
                .cloned(),
        );
        c
    }

    fn prepare(&self, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        A::prepare(self, wanted)
    }
}

/// The call [`Implementation::prepare`] was asked for.
struct Wanted<'a> {
    implementation: &'a str,
    operation: &'a str,
    params: &'a Params,
}

impl Wanted<'_> {
    /// A parameter the operation cannot do without.
    fn param(&self, p: Param) -> Result<usize, PrepareError> {
        self.params
            .get(p)
            .map(|v| v as usize)
            .ok_or(PrepareError::MissingParam {
                implementation: self.implementation.to_string(),
                operation: self.operation.to_string(),
                param: p.name(),
            })
    }
}

/// A compiled C variant as a catalog [`Implementation`], made from its [`CSpec`] by
/// [`CImplementation::load`].
pub struct CImplementation {
    spec: CSpec,
    name: String,
    /// The build, or why this CPU cannot run it (and it was not loaded).
    build: Result<Box<dyn Loaded>, String>,
}

impl CImplementation {
    /// Load the shared object (in a worker: this runs the library's constructors), unless
    /// this CPU cannot run it; to be timed, so without its peers: a measuring process
    /// maps the code it times, not every other variant's.
    pub fn load(spec: &CSpec) -> Result<CImplementation> {
        CImplementation::load_for_gate(&CSpec {
            peers: Vec::new(),
            ..spec.clone()
        })
    }

    /// [`CImplementation::load`] with the peers the gate compares it with loaded too.
    pub fn load_for_gate(spec: &CSpec) -> Result<CImplementation> {
        let build = match &spec.unsupported {
            Some(why) => Err(why.clone()),
            None => Ok((info(spec.kind).load)(spec)?),
        };
        Ok(CImplementation {
            spec: spec.clone(),
            name: spec.name(),
            build,
        })
    }
}

/// A C API function's status: 0, or what the gate says instead of comparing the bytes
/// the function left behind: its name and what it returned.
fn status(function: &str, r: i32) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{function} returned {r}"))
    }
}

/// Whether a gate call's refusal `why` is the function's own status ([`status`]): it
/// declined the input (a length beyond what it takes), which the case's call at that
/// length then fails with, rather than output it got wrong.
fn declined(why: &str) -> bool {
    why.split_once(" returned ")
        .is_some_and(|(f, r)| f.starts_with("crypto_") && r.parse::<i32>().is_ok())
}

impl<A> Build<A> {
    /// Notes the gate's call about to be made (`call`: the function and its lengths) for
    /// the note a crash leaves ([`crash_note`]), naming the build where it is a peer's:
    /// a peer that dies in a comparison must not read as the compared build's crash.
    fn note_gate_call(&self, call: std::fmt::Arguments) {
        if self.peer {
            crash_note::set(format_args!(
                "{call} {}, called by the correctness gate",
                as_peer(&self.name)
            ));
        } else {
            crash_note::set(format_args!("{call}, called by the correctness gate"));
        }
    }

    /// [`written`], with the call noted ([`Build::note_gate_call`]); `args` are the
    /// lengths it is given.
    fn written(
        &self,
        function: &str,
        args: std::fmt::Arguments,
        call: impl FnMut(u8) -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, String> {
        self.note_gate_call(format_args!("{function}({args})"));
        written(function, call)
    }
}

/// How the note of a call a build is given as another's peer names it.
fn as_peer(name: &str) -> String {
    format!("of the peer variant {name}")
}

/// The peer, of `peers`, that a gate's failure (`why`, with its worker's last note) says
/// died in a call made to compare with it, if any.
pub fn peer_that_died<'a>(why: &str, peers: &'a [CSpec]) -> Option<&'a CSpec> {
    peers.iter().find(|p| why.contains(&as_peer(&p.name())))
}

/// The gate's output: `call` (one function on one input, into an output buffer it is
/// given filled with the byte it is passed) made twice, into zeros and into 0xff bytes,
/// which must leave the same output. Bytes that follow the fill are bytes the function
/// never wrote, or read from memory it never initialised: glue that copies half a digest
/// agrees with every variant that shares it, and a reference checks only what it covers.
fn written(
    function: &str,
    mut call: impl FnMut(u8) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let zeros = call(0x00)?;
    let ones = call(0xff)?;
    unwritten(function, "output", &zeros, &ones)?;
    Ok(zeros)
}

/// How many bytes on each side of an output buffer the gate watches.
const GUARD: usize = 64;

/// An output buffer of the gate's, between two guards of [`GUARD`] bytes: a function that
/// writes a little before or past its output is named for it, instead of passing (or
/// corrupting the heap, and crashing somewhere that blames something else).
struct Guarded {
    bytes: Vec<u8>,
    len: usize,
}

/// The guards' bytes: unlike either fill the gate uses, and unlike each other.
fn guard_byte(i: usize) -> u8 {
    0x5a ^ (i as u8).wrapping_mul(29)
}

impl Guarded {
    /// `len` bytes of `fill`, guarded.
    fn new(fill: u8, len: usize) -> Guarded {
        let mut bytes = vec![fill; len + 2 * GUARD];
        for i in 0..GUARD {
            bytes[i] = guard_byte(i);
            bytes[GUARD + len + i] = guard_byte(GUARD + i);
        }
        Guarded { bytes, len }
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes[GUARD..].as_mut_ptr()
    }

    /// The output `function` wrote, or how far it wrote outside it.
    fn checked(self, function: &str, what: &str) -> Result<Vec<u8>, String> {
        let len = self.len;
        let before = (0..GUARD).find(|&i| self.bytes[i] != guard_byte(i));
        if let Some(first) = before {
            return Err(format!(
                "{function} wrote {} byte{} before the start of its {len}-byte {what}",
                GUARD - first,
                if GUARD - first == 1 { "" } else { "s" }
            ));
        }
        let past = (0..GUARD).rfind(|&i| self.bytes[GUARD + len + i] != guard_byte(GUARD + i));
        if let Some(last) = past {
            return Err(format!(
                "{function} wrote {} byte{} past the end of its {len}-byte {what}",
                last + 1,
                if last == 0 { "" } else { "s" }
            ));
        }
        Ok(self.bytes[GUARD..GUARD + len].to_vec())
    }
}

/// An input of the gate's as a function is given it: a copy of its own, compared with
/// the original after the call. A function that writes to its `const` input is named for
/// it; were it given the original, its next call would read the changed input and the
/// gate would blame output that differs from one call to the next.
struct Input<'a> {
    what: &'static str,
    given: &'a [u8],
    copy: Vec<u8>,
}

impl Input<'_> {
    fn new<'a>(what: &'static str, given: &'a [u8]) -> Input<'a> {
        Input {
            what,
            given,
            copy: given.to_vec(),
        }
    }

    fn as_ptr(&self) -> *const u8 {
        self.copy.as_ptr()
    }

    /// Whether `function`, given these inputs, left each as it was.
    fn unchanged(function: &str, inputs: &[&Input]) -> Result<(), String> {
        for input in inputs {
            if let Some(i) = (input.copy.iter().zip(input.given)).position(|(a, b)| a != b) {
                return Err(format!(
                    "{function} modified its {} (byte {i} of {}), which the C API passes `const`",
                    input.what,
                    input.given.len()
                ));
            }
        }
        Ok(())
    }
}

/// Whether `function` wrote all of its `what`, given what it left in a buffer that
/// started as zeros and in one that started as 0xff bytes, for the same input.
fn unwritten(function: &str, what: &str, zeros: &[u8], ones: &[u8]) -> Result<(), String> {
    if zeros.len() != ones.len() {
        return Err(format!(
            "{function} gave {} {what} bytes, then {} for the same input",
            zeros.len(),
            ones.len()
        ));
    }
    let differ: Vec<usize> = (0..zeros.len()).filter(|&i| zeros[i] != ones[i]).collect();
    left_as_filled(
        function,
        what,
        &differ,
        zeros.len(),
        "they differ when it starts as zeros or as 0xff bytes",
    )
}

/// The refusal of `function`'s `what` of `len` bytes, whose bytes at `positions` (if any)
/// it never wrote, as `how` shows.
fn left_as_filled(
    function: &str,
    what: &str,
    positions: &[usize],
    len: usize,
    how: &str,
) -> Result<(), String> {
    match (positions.first(), positions.last()) {
        (Some(first), Some(last)) => Err(format!(
            "{function} left {} of its {len} {what} bytes (from byte {first} to {last}) as the buffer held them: {how} (unwritten, or computed from memory it never initialised)",
            positions.len()
        )),
        _ => Ok(()),
    }
}

/// The fills [`unwritten_by_chance`] makes a function's output into.
const FILLS: [u8; 4] = [0x00, 0xff, 0x5a, 0xa5];

/// Whether `function` wrote all of its `what`, for a function whose output cannot be made
/// twice alike (it draws randomness of its own): `outputs`, one per fill of [`FILLS`],
/// must not keep a byte's fill in all of them. A byte it wrote keeps four different fills
/// by chance with probability 2^-32.
fn unwritten_by_chance(function: &str, what: &str, outputs: &[Vec<u8>]) -> Result<(), String> {
    let len = outputs.first().map_or(0, Vec::len);
    if outputs.iter().any(|o| o.len() != len) {
        return Err(format!(
            "{function} gave {what}s of different lengths on different calls"
        ));
    }
    let kept: Vec<usize> = (0..len)
        .filter(|&i| outputs.iter().zip(FILLS).all(|(o, fill)| o[i] == fill))
        .collect();
    left_as_filled(
        function,
        what,
        &kept,
        len,
        &format!(
            "they kept the buffer's fill in each of {} calls into buffers filled differently",
            FILLS.len()
        ),
    )
}

/// A C call whose function's status, and output, can be read.
trait Checked: 'static {
    /// Call the function once on the prepared buffers: its name and status.
    fn run(&mut self) -> (&'static str, i32);
    /// What the last call wrote, where every call on the same buffers must write the
    /// same; `None` where the function draws randomness (a KEM's key pair and
    /// encapsulation).
    fn output(&self) -> Option<&[u8]>;
}

/// `call`, made once untimed on its prepared buffers, or the case's refusal if its
/// function fails there: the gate tries its own lengths, not the case's, and a function
/// that returns an error at once would otherwise be timed doing nothing and reported
/// at an impossible speed.
fn tried(mut call: impl Checked, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
    crash_note::set(format_args!(
        "{} {}{}{}, the case's call",
        wanted.implementation,
        wanted.operation,
        if wanted.params.is_empty() { "" } else { " at " },
        wanted.params
    ));
    let (function, r) = call.run();
    status(function, r).map_err(|why| failed(why, wanted))?;
    let before = call.output().map(<[u8]>::to_vec);
    Ok(Box::new(Timed {
        call,
        params: wanted.params.clone(),
        before,
    }))
}

/// A C call as it is timed: neither status nor output is read inside the timed region,
/// where even a compare would be counted (by `--counter instructions` too), but once more
/// after timing, untimed, so that a function that started failing or computing wrong
/// results during the samples (at its 3000th call, from a counter, a table made lazily, a
/// static buffer) has them refused rather than reported as the speed of the operation.
struct Timed<C> {
    call: C,
    params: Params,
    /// The output of the untimed call before timing (the gate checked the function's
    /// output on these lengths in a worker of its own).
    before: Option<Vec<u8>>,
}

impl<C: Checked> Call for Timed<C> {
    fn call(&mut self) {
        self.call.run();
    }

    fn after_timing(&mut self) -> Option<AfterTiming> {
        let (function, r) = self.call.run();
        let at = if self.params.is_empty() {
            String::new()
        } else {
            format!(" at {}", self.params)
        };
        if r != 0 {
            return Some(AfterTiming::Failed(format!(
                "{function} returned {r}{at} after it was timed (the untimed call before timing succeeded: its samples may be of a failing function)"
            )));
        }
        // The same buffers before and after: of one length.
        let (before, after) = (self.before.as_deref()?, self.call.output()?);
        let differs = before.iter().zip(after).position(|(a, b)| a != b)?;
        Some(AfterTiming::Wrong(format!(
            "{function}{at} gave other output after it was timed than before, on the same input (from byte {differs}): its samples may be of wrong results; does it keep state between calls (a counter, a table made on first use, a static buffer)?"
        )))
    }
}

/// The refusal of the case `wanted` because of `why`, a function's failed status.
fn failed(why: String, wanted: &Wanted) -> PrepareError {
    PrepareError::Failed(if wanted.params.is_empty() {
        why
    } else {
        format!("{why} at {}", wanted.params)
    })
}

/// The gate's refusal, in `check`, of a build whose function returned an error.
fn refused(check: impl Into<String>) -> impl FnOnce(String) -> Mismatch {
    let check = check.into();
    move |why| Mismatch::new(check, why)
}

/// As [`refused`], for a call on the variant that `check` compares with.
fn refused_there(check: &str) -> impl FnOnce(String) -> Mismatch + '_ {
    move |why| Mismatch::new(check, format!("{why} in that variant"))
}

/// Deterministic, well-mixed test bytes (xorshift), different per `stream`.
fn bytes(len: usize, stream: u64) -> Vec<u8> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ stream.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ len as u64;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

impl Implementation for CImplementation {
    fn provider(&self) -> &str {
        &self.spec.provider
    }
    fn algorithm(&self) -> &str {
        &self.spec.algorithm
    }
    fn name(&self) -> String {
        self.name.clone()
    }
    fn lanes(&self) -> usize {
        self.spec.lanes
    }
    fn kind(&self) -> Kind {
        info(self.spec.kind).kind
    }
    fn operations(&self) -> &[Operation] {
        (info(self.spec.kind).operations)(&self.spec)
    }
    fn unsupported(&self) -> Option<String> {
        self.spec.unsupported.clone()
    }
    fn caveats(&self) -> Vec<String> {
        let mut c = self.spec.caveats.clone();
        if let Ok(build) = &self.build {
            c.extend(build.caveats());
        }
        c
    }

    fn verify(&self) -> Result<(), Mismatch> {
        match &self.build {
            Ok(build) => build.verify(),
            Err(why) => Err(Mismatch::new(&self.name, format!("not loaded: {why}"))),
        }
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        let build = self
            .build
            .as_ref()
            .map_err(|why| PrepareError::Unsupported(format!("{}: {why}", self.name)))?;
        let operation = self.operation(operation)?.name;
        build.prepare(&Wanted {
            implementation: &self.name,
            operation,
            params,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a function's own status is a length it declines; output it left unwritten,
    /// or a refusal that quotes a status in other words, is not.
    #[test]
    fn a_declined_input_is_the_functions_own_status_only() {
        assert!(declined(&status("crypto_hash", -1).unwrap_err()));
        assert!(declined("crypto_aead_decrypt returned 2"));
        assert!(!declined(
            "crypto_hash left 16 of its 32 output bytes (from byte 16 to 31) as the buffer held them"
        ));
        assert!(!declined("crypto_hash returned -1 in that variant"));
    }

    /// The prototypes every build is compiled with are those the C API's page gives, one
    /// for each function the kind must export, in its order.
    #[test]
    fn the_prototypes_are_the_documented_ones() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/c-api.md"))
                .expect("docs/c-api.md");
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let doc = words(&doc);
        for kind in [
            CKind::Hash,
            CKind::Stream,
            CKind::Aead,
            CKind::Core,
            CKind::Kem,
            CKind::Scalarmult,
            CKind::Xof,
        ] {
            let info = info(kind);
            assert_eq!(info.prototypes.len(), info.functions.len(), "{kind:?}");
            for (p, f) in info.prototypes.iter().zip(info.functions) {
                assert!(p.starts_with(&format!("int {f}(")), "{p} is not {f}'s");
                assert!(
                    doc.contains(&format!("{};", words(p))),
                    "{p} is not in docs/c-api.md"
                );
            }
        }
    }

    /// What is known of an algorithm the gate knows, found by its name alone: the sizes of
    /// each of its forms, its reference for manifest vectors where its kind takes them, and
    /// nothing for a name it does not know.
    #[test]
    fn a_known_algorithm_is_found_by_name_with_its_sizes_and_reference() {
        let sizes = |s: &[(&'static str, u64)]| s.iter().copied().collect::<BTreeMap<_, _>>();
        let chacha = |nonce| sizes(&[("CRYPTO_KEYBYTES", 32), ("CRYPTO_NONCEBYTES", nonce)]);
        for nonce in [12, 8] {
            assert_eq!(
                check_known_sizes(CKind::Stream, "chacha20", &chacha(nonce), "api.h"),
                Ok(())
            );
        }
        let err = check_known_sizes(CKind::Stream, "chacha20", &chacha(16), "api.h").unwrap_err();
        assert!(
            err.starts_with(
                "`chacha20` has CRYPTO_NONCEBYTES = 12 (or, in its other form, CRYPTO_NONCEBYTES = 8)"
            ),
            "{err}"
        );
        let digest = |n| sizes(&[("CRYPTO_BYTES", n)]);
        assert!(check_known_sizes(CKind::Hash, "sha-512", &digest(32), "api.h").is_err());
        assert_eq!(
            check_known_sizes(CKind::Hash, "blake2b", &digest(7), "api.h"),
            Ok(())
        );
        assert_eq!(
            check_known_sizes(CKind::Xof, "shake128", &digest(0), "api.h"),
            Ok(())
        );
        let kem = |ct| {
            sizes(&[
                ("CRYPTO_PUBLICKEYBYTES", 1184),
                ("CRYPTO_SECRETKEYBYTES", 2400),
                ("CRYPTO_CIPHERTEXTBYTES", ct),
                ("CRYPTO_BYTES", 32),
            ])
        };
        assert_eq!(
            check_known_sizes(CKind::Kem, "ml-kem-768", &kem(1088), "api.h"),
            Ok(())
        );
        assert!(check_known_sizes(CKind::Kem, "ml-kem-768", &kem(1000), "api.h").is_err());

        let vector = |input: &str, key: &str, output: &str| Vector {
            input: input.into(),
            key: key.into(),
            nonce: String::new(),
            output: output.into(),
            source: String::new(),
            origin: None,
        };
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let typo = abc.replace("ba78", "ba79");
        let check = check_vectors_against_reference;
        assert_eq!(
            check(CKind::Hash, "sha-256", &[vector("616263", "", abc)]),
            Ok(())
        );
        assert!(check(CKind::Hash, "sha-256", &[vector("616263", "", &typo)]).is_err());
        // No reference for an unknown name, nor for fields of another algorithm's sizes.
        assert_eq!(
            check(CKind::Hash, "toy", &[vector("616263", "", &typo)]),
            Ok(())
        );
        assert_eq!(
            check(CKind::Core, "aes-128", &[vector("00", "00", "00")]),
            Ok(())
        );
        let shake = "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26";
        assert_eq!(
            check(CKind::Xof, "shake128", &[vector("", "", shake)]),
            Ok(())
        );
        assert!(check(CKind::Xof, "shake128", &[vector("", "", &shake[2..])]).is_err());

        assert_eq!(
            checked_against(CKind::Scalarmult, "x25519", 0, None),
            "known answers for x25519"
        );
        assert_eq!(
            checked_against(CKind::Aead, "AES-128-GCM", 0, None),
            "its variants only (known answers exist for `aes-128-gcm`)"
        );
    }

    #[test]
    fn a_known_algorithm_misspelt_is_recognised() {
        assert_eq!(near_miss(CKind::Hash, "sha256"), Some("sha-256"));
        assert_eq!(near_miss(CKind::Hash, "SHA3_256"), Some("sha3-256"));
        assert_eq!(near_miss(CKind::Kem, "mlkem768"), Some("ml-kem-768"));
        assert_eq!(near_miss(CKind::Hash, "sha-256"), None, "spelt right");
        assert_eq!(near_miss(CKind::Hash, "blake2b"), None);
        assert_eq!(near_miss(CKind::Stream, "sha256"), None, "another kind's");
    }

    /// Variants that disagree are told how to give their algorithm known answers in the
    /// way their kind takes them: an AEAD was once told to give `vectors`, which the
    /// manifest refuses for it, and a KEM the same, which takes neither.
    #[test]
    fn the_advice_to_variants_that_disagree_is_what_their_kind_takes() {
        for kind in [CKind::Hash, CKind::Stream, CKind::Core, CKind::Xof] {
            assert!(
                disagreement(kind).contains("(give the algorithm `vectors` in the manifest)"),
                "{kind:?}"
            );
        }
        let aead = disagreement(CKind::Aead);
        assert!(
            aead.contains("give the algorithm a `kat` file (NIST LWC genkat_aead form)"),
            "{aead}"
        );
        assert!(!aead.contains("vectors"), "{aead}");
        for kind in [CKind::Kem, CKind::Scalarmult] {
            let said = disagreement(kind);
            assert!(
                !said.contains("`vectors`") && !said.contains("`kat`"),
                "{said}"
            );
            assert!(said.contains("no known answers"), "{said}");
        }
    }

    #[test]
    fn output_that_follows_the_buffer_fill_is_refused_with_its_bytes() {
        let whole = written("f", |_| Ok(vec![7; 8]));
        assert_eq!(whole, Ok(vec![7; 8]));
        let half = written("f", |fill| Ok([vec![7; 4], vec![fill; 4]].concat()));
        assert_eq!(
            half.unwrap_err(),
            "f left 4 of its 8 output bytes (from byte 4 to 7) as the buffer held them: they differ when it starts as zeros or as 0xff bytes (unwritten, or computed from memory it never initialised)"
        );
        let one = written("f", |fill| Ok(vec![1, fill & 1, 1]));
        assert!(
            one.unwrap_err()
                .starts_with("f left 1 of its 3 output bytes (from byte 1 to 1)")
        );
        let lengths = written("f", |fill| Ok(vec![0; 2 + (fill & 1) as usize]));
        assert_eq!(
            lengths.unwrap_err(),
            "f gave 2 output bytes, then 3 for the same input"
        );
        let failing = written("f", |_| Err("f returned -1".to_string()));
        assert_eq!(failing.unwrap_err(), "f returned -1");
    }

    /// A shared object that exports only the sizes table (CRYPTO_BYTES = 32) and
    /// `crypto_hash`, built with `cc` in `dir`.
    fn sizes_only_library(dir: &std::path::Path) -> PathBuf {
        let source = format!(
            "const unsigned long long {API_SYMBOL}[{}] = {{ 32 }};\n\
             int crypto_hash(void) {{ return 0; }}\n",
            API_NAMES.len()
        );
        crate::cimpl::compile::tests::library(dir, "sizes", &source)
    }

    #[test]
    fn a_size_the_manifest_disagrees_with_is_said_once_without_the_case_name() {
        let d = tempfile::tempdir().unwrap();
        let spec = CSpec {
            provider: "toys".into(),
            algorithm: "sha-256".into(),
            variant: "o2".into(),
            target: "native".into(),
            kind: CKind::Hash,
            library: sizes_only_library(d.path()),
            unsupported: None,
            not_built: None,
            kat: None,
            caveats: Vec::new(),
            vectors: Vec::new(),
            expected_sizes: [("CRYPTO_BYTES".to_string(), 64)].into(),
            peers: Vec::new(),
            estimate: None,
            lanes: 1,
            timed_lengths: Vec::new(),
            prototypes_checked: true,
            api_h: "avx2/api.h".into(),
            compiler: "cc".into(),
            compiler_version: String::new(),
            flags: Vec::new(),
        };
        let Err(e) = CImplementation::load(&spec) else {
            panic!("a disagreeing size was loaded")
        };
        assert_eq!(
            format!("{e:#}"),
            "`avx2/api.h` gives CRYPTO_BYTES = 32, the manifest says 64; make them agree"
        );
    }
}
