//! A loaded shared object and typed access to its SUPERCOP symbols.

use std::ffi::{CStr, CString, c_void};
use std::path::Path;

use anyhow::{Result, bail};

/// A `dlopen`ed shared object, closed on drop.
pub struct Library {
    handle: *mut c_void,
    path: String,
}

// SAFETY: the handle is only used to look up symbols; dlsym is thread-safe.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

fn dl_error() -> String {
    // SAFETY: dlerror returns a thread-local C string or NULL.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

impl Library {
    /// `dlopen`s the shared object at `path` (running its constructors), resolving every
    /// symbol now; an error naming the file and `dlerror`'s reason where that fails.
    pub fn open(path: &Path) -> Result<Library> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())?;
        // SAFETY: a valid NUL-terminated path; RTLD_LOCAL keeps each variant's symbols
        // apart, RTLD_NOW reports missing symbols here rather than mid-measurement, and
        // RTLD_DEEPBIND makes the build's own functions, and the libraries it links, come
        // before this process's: a build's `SHA256` or `AES_encrypt` would otherwise be
        // OpenSSL's, which cryptobench links, and OpenSSL's output and speed would be
        // reported under the build's name.
        let handle = unsafe {
            libc::dlopen(
                c.as_ptr(),
                libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
            )
        };
        if handle.is_null() {
            bail!("cannot load `{}`: {}", path.display(), dl_error());
        }
        Ok(Library {
            handle,
            path: path.display().to_string(),
        })
    }

    /// The address of `name`, or an error naming the symbol and the file.
    pub fn symbol(&self, name: &str) -> Result<*mut c_void> {
        let c = CString::new(name)?;
        // SAFETY: valid handle and NUL-terminated name.
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        if p.is_null() {
            bail!(
                "`{}` does not export `{name}` (the C API needs it; see docs/c-api.md)",
                self.path
            );
        }
        Ok(p)
    }

    /// `name` as a function pointer of type `F`, or an error naming the symbol and the
    /// file.
    ///
    /// # Safety
    ///
    /// `F` must be the `extern "C"` function pointer type that `name` was defined with.
    pub unsafe fn function<F: Copy>(&self, name: &str) -> Result<F> {
        const {
            assert!(
                size_of::<F>() == size_of::<*mut c_void>(),
                "a symbol's address converts only to a pointer-sized type"
            )
        };
        let p = self.symbol(name)?;
        // SAFETY: F is pointer-sized (asserted above) and, the caller promises, the type
        // of the function at p.
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and is closed once.
        unsafe { libc::dlclose(self.handle) };
    }
}

/// `crypto_hash(out, in, inlen)`: the `CRYPTO_BYTES`-byte digest of `inlen` bytes.
pub type HashFn = unsafe extern "C" fn(out: *mut u8, input: *const u8, inlen: u64) -> i32;
/// `crypto_xof(out, outlen, in, inlen)`: `CRYPTO_LANES` messages of `inlen` bytes back to
/// back in, as many outputs of `outlen` bytes back to back out.
pub type XofFn =
    unsafe extern "C" fn(out: *mut u8, outlen: u64, input: *const u8, inlen: u64) -> i32;
/// `crypto_stream_xor(c, m, mlen, n, k)`: `mlen` bytes of `m` XORed with the keystream of
/// key `k` and nonce `n`, into `c`.
pub type StreamXorFn =
    unsafe extern "C" fn(c: *mut u8, m: *const u8, mlen: u64, n: *const u8, k: *const u8) -> i32;
/// `crypto_aead_encrypt(c, clen, m, mlen, ad, adlen, nsec, npub, k)`: the ciphertext of
/// `m` followed by the tag, into `c`, and its length into `clen`.
pub type AeadEncryptFn = unsafe extern "C" fn(
    c: *mut u8,
    clen: *mut u64,
    m: *const u8,
    mlen: u64,
    ad: *const u8,
    adlen: u64,
    nsec: *const u8,
    npub: *const u8,
    k: *const u8,
) -> i32;
/// `crypto_aead_decrypt(m, mlen, nsec, c, clen, ad, adlen, npub, k)`: the message of `c`
/// into `m` and its length into `mlen`; non-zero where the tag does not verify.
pub type AeadDecryptFn = unsafe extern "C" fn(
    m: *mut u8,
    mlen: *mut u64,
    nsec: *mut u8,
    c: *const u8,
    clen: u64,
    ad: *const u8,
    adlen: u64,
    npub: *const u8,
    k: *const u8,
) -> i32;
/// `crypto_core(out, in, k, c)`: one block cipher call or permutation of `in`, with key
/// `k` and constant `c`.
pub type CoreFn =
    unsafe extern "C" fn(out: *mut u8, input: *const u8, k: *const u8, c: *const u8) -> i32;
/// `crypto_kem_keypair(pk, sk)`: a new key pair, from `randombytes`.
pub type KemKeypairFn = unsafe extern "C" fn(pk: *mut u8, sk: *mut u8) -> i32;
/// `crypto_kem_enc(ct, ss, pk)`: a ciphertext and its shared secret for public key `pk`.
pub type KemEncFn = unsafe extern "C" fn(ct: *mut u8, ss: *mut u8, pk: *const u8) -> i32;
/// `crypto_kem_dec(ss, ct, sk)`: the shared secret of ciphertext `ct` under secret key
/// `sk`.
pub type KemDecFn = unsafe extern "C" fn(ss: *mut u8, ct: *const u8, sk: *const u8) -> i32;
/// `crypto_scalarmult(q, n, p)`: the scalar `n` times the point `p`, into `q`.
pub type ScalarmultFn = unsafe extern "C" fn(q: *mut u8, n: *const u8, p: *const u8) -> i32;
/// `crypto_scalarmult_base(q, n)`: the scalar `n` times the standard base point, into `q`.
pub type ScalarmultBaseFn = unsafe extern "C" fn(q: *mut u8, n: *const u8) -> i32;
/// The type of the generated `cryptobench_randombytes_hook` variable.
pub type RandombytesHook = Option<unsafe extern "C" fn(x: *mut u8, n: u64)>;
