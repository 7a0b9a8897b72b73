//! The one image decoder: any supported image (PNG, TGA, BMP and JPEG through `image`; PCX,
//! BLP and WCT through our checked decoders) to RGBA8, and reading an [`Asset`] as a scene
//! image.

use std::path::Path;
use std::sync::Arc;

use super::folders::{Asset, FolderSource};
use super::textures::model_folder;
use super::{has_extension, io_wording};
use crate::archive::one_line;
use crate::scene::{Image, ImageSource};

impl ImageSource for Asset {
    fn location(&self) -> String {
        Asset::location(self)
    }

    fn load(&self) -> Result<Image, String> {
        let bytes = self.read().map_err(|e| format!("reading {}: {}", one_line(&self.location()), io_wording(&e)))?;
        decode_image(&bytes, &self.name, self.location())
    }
}

/// Decodes any supported image to RGBA8. The content decides the format; `name` (its file
/// name) only hints TGA, which has no magic bytes. PCX and BLP, which the `image` crate
/// lacks, go through the checked decoders in `quake2::pcx` and `m2::blp`.
pub fn decode_image(bytes: &[u8], name: &str, location: String) -> Result<Image, String> {
    let at = one_line(&location);
    let (width, height, rgba) = if bytes.first() == Some(&0x0a) && bytes.get(2) == Some(&1) {
        let image = crate::formats::quake2::pcx::decode(bytes).map_err(|e| format!("decoding PCX {at}: {e}"))?;
        (image.width(), image.height(), image.into_raw())
    } else if bytes.starts_with(b"BLP2") {
        let blp = crate::formats::m2::blp::decode(bytes).map_err(|e| format!("decoding BLP {at}: {e}"))?;
        (blp.width, blp.height, blp.rgba)
    } else if has_extension(Path::new(name), &["wct"]) && crate::formats::wct::looks_like_wct(bytes) {
        // WCT has no magic bytes: the name says to try it, the header's shape confirms.
        let wct = crate::formats::wct::decode(bytes).map_err(|e| format!("decoding WCT {at}: {e}"))?;
        (wct.width, wct.height, wct.rgba)
    } else {
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
        if let Ok(format) = image::ImageFormat::from_path(name) {
            reader.set_format(format);
        }
        let reader = reader
            .with_guessed_format()
            .map_err(|e| format!("reading image {at}: {}", crate::archive::io_reason(&e)))?;
        let format = reader.format();
        let image =
            reader.decode().map_err(|e| format!("decoding {} {at}: {}", format_name(format), image_reason(&e)))?;
        let image = image.to_rgba8();
        (image.width(), image.height(), image.into_raw())
    };
    let expected = u64::from(width) * u64::from(height) * 4;
    if rgba.len() as u64 != expected {
        return Err(format!("{at} decoded to {} bytes, not {width}x{height} RGBA", rgba.len()));
    }
    Ok(Image { width, height, rgba, location })
}

/// The format's usual name for messages (`PNG`), or `image` where none was recognised.
fn format_name(format: Option<image::ImageFormat>) -> String {
    format.and_then(|f| f.extensions_str().first()).map_or_else(|| "image".to_string(), |e| e.to_uppercase())
}

/// Our one-line wording for an `image` decoder failure, by its kind: the crate's own text
/// can run over several lines and names its internals.
fn image_reason(error: &image::ImageError) -> String {
    match error {
        image::ImageError::Decoding(_) => "decoding failed (damaged or not an image)".into(),
        image::ImageError::Unsupported(_) => {
            "unsupported format (mdview reads PNG, TGA, BMP, JPEG, PCX, BLP and WCT)".into()
        }
        image::ImageError::Limits(_) => "dimensions too large".into(),
        image::ImageError::Parameter(_) => "invalid image parameters".into(),
        image::ImageError::Encoding(_) => "encoding failed".into(),
        image::ImageError::IoError(io) => format!("cut short or unreadable: {}", crate::archive::io_reason(io)),
    }
}

/// The image file at `path` as a scene image source (for scenes built by hand).
pub fn image_file(path: &Path) -> Option<Arc<dyn ImageSource>> {
    let folder = model_folder(path);
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(Arc::new(Asset { folder: FolderSource::Directory(folder), name }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A damaged texture is one line in our words, naming the file (a line break in its name
    /// escaped), never the decoder's own text.
    #[test]
    fn a_corrupt_png_texture_is_one_line_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("mdview-corrupt-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The PNG signature, then a header chunk cut off, then junk.
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0".to_vec();
        bytes.extend([0xff; 7]);
        let garbage = [b"\x89PNG\r\n\x1a\n".to_vec(), vec![0x5a; 64]].concat();
        for (name, data) in [("skin.png", &bytes), ("bad\nname.png", &garbage), ("empty.png", &Vec::new())] {
            std::fs::write(dir.join(name), data).unwrap();
            let asset = Asset { folder: FolderSource::Directory(dir.clone()), name: name.to_string() };
            let error = ImageSource::load(&asset).unwrap_err();
            assert!(!error.contains('\n'), "{error:?}");
            assert!(error.contains(&one_line(&dir.join(name).display().to_string())), "{error}");
            assert!(error.starts_with("decoding PNG "), "{error}");
        }
        // A file that is not there: the I/O error's kind and number, not the OS's sentence.
        let missing = Asset { folder: FolderSource::Directory(dir.clone()), name: "gone.png".into() };
        let error = ImageSource::load(&missing).unwrap_err();
        assert!(error.contains("gone.png") && error.contains("(os error 2)"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
