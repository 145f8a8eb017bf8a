//! Helpers the test modules share.

/// A file in the temporary folder that a scenario under test points at (a CDF, a trace), removed
/// when dropped so that test runs leave nothing behind; shown as its path.
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    pub fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("aqmlab-test-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl std::fmt::Display for TempFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.display())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
