//! Texture images: decoded pixels, where a scene image's bytes come from ([`ImageSource`]),
//! decoding them once for every reader, and whether see-through art draws cut-out or blended.

/// Decoded texture pixels: RGBA8, row-major, top row first, with where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Where the pixels were read from (a file path, or a member of an archive).
    pub location: String,
}

/// How a see-through texture should be drawn (the renderer and the exporters share this).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeeThroughKind {
    /// Alpha is (nearly) all fully clear or fully opaque: alpha test, depth write.
    CutOut,
    /// Alpha holds real gradients: sorted blending without depth write.
    Blended,
}

/// Share of texels with partial alpha above which a texture counts as a true gradient.
pub const GRADIENT_SHARE: f32 = 0.25;

/// Alpha values strictly between these count as partial (a little slack on both ends, since
/// compressed or resampled cut-out art rarely lands exactly on 0 and 255).
const PARTIAL_ALPHA: std::ops::RangeInclusive<u8> = 24..=231;

/// Decides between cut-out and blended drawing for a see-through (TPW bit 0x02) texture of
/// RGBA8 pixels.
///
/// The heuristic: cut-out art (palm fronds, grass, bats) is made of fully clear and fully
/// opaque texels, with partial alpha only along the antialiased rims of its shapes, a small
/// share of the image. Gradient art (ripple rings, sea, antenna cone) has partial alpha over
/// much of its area. So a texture is [`SeeThroughKind::Blended`] when more than
/// [`GRADIENT_SHARE`] of its texels have alpha in 24..=231, else [`SeeThroughKind::CutOut`].
/// A texture with no alpha at all is a cut-out that happens to hide nothing, which draws
/// exactly as opaque with correct depth.
pub fn classify_see_through(rgba: &[u8]) -> SeeThroughKind {
    let total = rgba.len() / 4;
    if total == 0 {
        return SeeThroughKind::CutOut;
    }
    let partial = rgba.chunks_exact(4).filter(|p| p.get(3).is_some_and(|a| PARTIAL_ALPHA.contains(a))).count();
    if partial as f32 > GRADIENT_SHARE * total as f32 { SeeThroughKind::Blended } else { SeeThroughKind::CutOut }
}

/// Where a [`SceneImage`]'s bytes live and how they decode. `formats::assets` implements it,
/// so the scene (and the renderer and exporters that read it) never touch files or codecs.
pub trait ImageSource: std::fmt::Debug + Send + Sync {
    /// The file (or archive member) the image comes from, as users should see it.
    fn location(&self) -> String;
    /// Reads and decodes the image.
    fn load(&self) -> Result<Image, String>;
}

/// One texture a scene's materials refer to ([`Material::image`](super::Material::image)): the name
/// as the model states it, where the resolver found it, and its pixels, decoded on first use and
/// kept. Clones share the decoded pixels.
#[derive(Debug, Clone)]
pub struct SceneImage {
    /// The texture name as the model states it.
    pub name: String,
    /// Where it resolved; `None` when it was found nowhere.
    pub source: Option<std::sync::Arc<dyn ImageSource>>,
    loaded: std::sync::Arc<std::sync::OnceLock<Result<std::sync::Arc<Image>, String>>>,
}

impl SceneImage {
    pub fn new(name: impl Into<String>, source: Option<std::sync::Arc<dyn ImageSource>>) -> Self {
        Self { name: name.into(), source, loaded: Default::default() }
    }

    /// Where the image resolved, if anywhere.
    pub fn location(&self) -> Option<String> {
        self.source.as_ref().map(|s| s.location())
    }

    /// The decoded pixels (decoded once, then shared), or why there are none. The renderer's
    /// upload and the exporters both call this, so they show the same pixels. A panic in an
    /// image decoder (a bug: decoders return errors) is kept as this image's error, so the
    /// model still opens, with the fallback for this texture.
    pub fn load(&self) -> Result<std::sync::Arc<Image>, String> {
        self.loaded
            .get_or_init(|| match &self.source {
                Some(source) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| source.load()))
                    .unwrap_or_else(|_| {
                        Err(format!("{}: the image decoder crashed; please report this file", source.location()))
                    })
                    .map(std::sync::Arc::new),
                None => Err("not found".to_string()),
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image decoder that panics stands for a decoder bug.
    #[derive(Debug)]
    struct PanickingSource;

    impl ImageSource for PanickingSource {
        fn location(&self) -> String {
            "bad.pcx".into()
        }
        fn load(&self) -> Result<Image, String> {
            panic!("decoder bug")
        }
    }

    #[test]
    fn a_panicking_image_decoder_is_that_image_s_error_kept_for_every_caller() {
        let image = SceneImage::new("bad", Some(std::sync::Arc::new(PanickingSource)));
        for _ in 0..2 {
            let error = image.load().expect_err("no pixels");
            assert_eq!(error, "bad.pcx: the image decoder crashed; please report this file");
        }
    }
}
