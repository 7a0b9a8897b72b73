//! Exporters from the format-neutral scene: Wavefront OBJ (+ MTL) of one pose, glTF 2.0 with
//! every clip, and batch conversion of whole folders.

pub mod batch;
pub mod gltf;
pub mod obj;

/// Writes `bytes` to `path`, replacing a regular file already there by removing it first.
/// Truncating an existing file in place makes ext4 (`auto_da_alloc`) write the new data out
/// synchronously when the file is closed, and free the old blocks at once; a fresh file is
/// written back later like any other. Re-running a batch into the same folder hits this on
/// every output. Links are written through, as `std::fs::write` would.
pub fn write_output(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        std::fs::remove_file(path)?;
    }
    std::fs::write(path, bytes)
}

/// Whether `path` names a glTF output (`.glb` or `.gltf`, any case); anything else is OBJ.
pub fn is_gltf_path(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

/// Whether `path` names a file [`write_file`] can write: `.glb`, `.gltf` or `.obj`, any case.
/// Anything else is refused rather than guessed (it could be the model itself).
pub fn is_export_path(path: &std::path::Path) -> bool {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(extension.as_deref(), Some("glb" | "gltf" | "obj"))
}

/// What an export writes besides the geometry, by format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// OBJ: texture files copied beside the `.mtl` as PNG, or named where they were found.
    pub textures: obj::Textures,
    /// glTF: whether material colour, alpha and texture-transform animation is written. It
    /// needs the `KHR_animation_pointer` extension, and some readers refuse a whole file that
    /// uses it (assimp 5.2 fails on its colour channels).
    pub material_animation: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { textures: obj::Textures::CopyAsPng, material_animation: true }
    }
}

impl Options {
    /// What the glTF writer does with material animation.
    pub fn pointer_animation(&self) -> gltf::PointerAnimation {
        if self.material_animation { gltf::PointerAnimation::Write } else { gltf::PointerAnimation::Leave }
    }
}

/// Writes `scene` to `path` by its extension: glTF with every clip, or an OBJ of `pose`, as
/// `options` say. Returns the notes on what the file does not carry. The CLI's `export` of
/// one file and the viewer's Export both come here.
pub fn write_file(
    scene: &crate::scene::Scene,
    pose: &crate::scene::anim::Pose,
    path: &std::path::Path,
    options: Options,
) -> anyhow::Result<Vec<String>> {
    use anyhow::Context as _;
    if is_gltf_path(path) {
        gltf::write_with(scene, path, options.pointer_animation())
    } else {
        obj::write(scene, pose, path, options.textures).with_context(|| format!("writing {}", path.display()))
    }
}

/// `image` as PNG bytes, for the exporters (embedded in glTF, copied beside an OBJ).
pub fn encode_png(image: &crate::scene::Image) -> Result<Vec<u8>, image::ImageError> {
    use image::ImageEncoder as _;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png).write_image(
        &image.rgba,
        image.width,
        image.height,
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An existing file is replaced whole (a shorter write leaves nothing of the old one), and
    /// a link is written through, its target getting the bytes.
    #[test]
    fn write_output_replaces_files_and_writes_through_links() {
        let dir = std::env::temp_dir().join(format!("mdview-write-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("model.obj");
        write_output(&file, b"a long first version").unwrap();
        write_output(&file, b"short").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"short");
        let link = dir.join("link.obj");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_output(&link, b"through the link").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&file).unwrap(), b"through the link");
        std::fs::remove_dir_all(&dir).ok();
    }
}
