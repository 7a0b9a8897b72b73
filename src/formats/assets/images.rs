//! The one image decoder: any supported image (PNG, TGA, BMP and JPEG through `image`; PCX,
//! BLP and WCT through our checked decoders) to RGBA8, and reading an [`Asset`] as a scene
//! image.

use std::path::Path;
use std::sync::Arc;

use super::folders::{Asset, FolderSource};
use super::has_extension;
use super::textures::model_folder;
use crate::scene::{Image, ImageSource};

impl ImageSource for Asset {
    fn location(&self) -> String {
        Asset::location(self)
    }

    fn load(&self) -> Result<Image, String> {
        let bytes = self.read().map_err(|e| format!("reading {}: {e}", self.location()))?;
        decode_image(&bytes, &self.name, self.location())
    }
}

/// Decodes any supported image to RGBA8. The content decides the format; `name` (its file
/// name) only hints TGA, which has no magic bytes. PCX and BLP, which the `image` crate
/// lacks, go through the checked decoders in `quake2::pcx` and `m2::blp`.
pub fn decode_image(bytes: &[u8], name: &str, location: String) -> Result<Image, String> {
    let (width, height, rgba) = if bytes.first() == Some(&0x0a) && bytes.get(2) == Some(&1) {
        let image = crate::formats::quake2::pcx::decode(bytes).map_err(|e| format!("decoding PCX {location}: {e}"))?;
        (image.width(), image.height(), image.into_raw())
    } else if bytes.starts_with(b"BLP2") {
        let blp = crate::formats::m2::blp::decode(bytes).map_err(|e| format!("decoding BLP {location}: {e}"))?;
        (blp.width, blp.height, blp.rgba)
    } else if has_extension(Path::new(name), &["wct"]) && crate::formats::wct::looks_like_wct(bytes) {
        // WCT has no magic bytes: the name says to try it, the header's shape confirms.
        let wct = crate::formats::wct::decode(bytes).map_err(|e| format!("decoding WCT {location}: {e}"))?;
        (wct.width, wct.height, wct.rgba)
    } else {
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
        if let Ok(format) = image::ImageFormat::from_path(name) {
            reader.set_format(format);
        }
        let image = reader
            .with_guessed_format()
            .map_err(|e| format!("guessing image format: {e}"))?
            .decode()
            .map_err(|e| format!("decoding {location}: {e}"))?
            .to_rgba8();
        (image.width(), image.height(), image.into_raw())
    };
    let expected = u64::from(width) * u64::from(height) * 4;
    if rgba.len() as u64 != expected {
        return Err(format!("{location} decoded to {} bytes, not {width}x{height} RGBA", rgba.len()));
    }
    Ok(Image { width, height, rgba, location })
}

/// The image file at `path` as a scene image source (for scenes built by hand).
pub fn image_file(path: &Path) -> Option<Arc<dyn ImageSource>> {
    let folder = model_folder(path);
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(Arc::new(Asset { folder: FolderSource::Directory(folder), name }))
}
