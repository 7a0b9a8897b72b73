//! Text drawn into images on the CPU: the file names and errors of contact-sheet cells. Glyphs
//! come from `ab_glyph` with the Ubuntu Light face that egui ships (`epaint_default_fonts`),
//! so labels need no system fonts and look the same everywhere.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use image::{Rgba, RgbaImage};

/// The label face; `None` only if the bundled font failed to parse (then labels are blank).
fn face() -> Option<&'static FontRef<'static>> {
    static FACE: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FACE.get_or_init(|| FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT).ok()).as_ref()
}

/// The width in pixels of `text` at `size_px`, kerning included.
pub fn text_width(text: &str, size_px: f32) -> f32 {
    let Some(font) = face() else { return 0.0 };
    let scaled = font.as_scaled(PxScale::from(size_px));
    let mut width = 0.0;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        previous = Some(id);
    }
    width
}

/// `text`, shortened with a trailing `…` so that it fits in `max_width` pixels.
pub fn fit_text(text: &str, size_px: f32, max_width: f32) -> String {
    if text_width(text, size_px) <= max_width {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    for keep in (0..chars.len()).rev() {
        let candidate: String = chars.iter().take(keep).chain(std::iter::once(&'…')).collect();
        if text_width(&candidate, size_px) <= max_width {
            return candidate;
        }
    }
    String::new()
}

/// Splits `text` into lines no wider than `max_width`, breaking at spaces where it can and
/// inside a word only when the word alone is too wide.
pub fn wrap_text(text: &str, size_px: f32, max_width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        if text_width(&candidate, size_px) <= max_width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        // A word wider than the line is cut into pieces that fit.
        let mut piece = String::new();
        for c in word.chars() {
            piece.push(c);
            if text_width(&piece, size_px) > max_width && piece.chars().count() > 1 {
                piece.pop();
                lines.push(std::mem::replace(&mut piece, c.to_string()));
            }
        }
        line = piece;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The height of one line of text at `size_px` (ascent plus descent plus line gap).
pub fn line_height(size_px: f32) -> f32 {
    face().map_or(size_px, |font| {
        let scaled = font.as_scaled(PxScale::from(size_px));
        scaled.height() + scaled.line_gap()
    })
}

/// Draws one line of `text` with its top-left corner at (`x`, `y`), blending `color` (sRGB,
/// straight alpha) over the image by glyph coverage. Pixels outside the image are skipped.
pub fn draw_text(image: &mut RgbaImage, x: f32, y: f32, size_px: f32, color: [u8; 4], text: &str) {
    let Some(font) = face() else { return };
    let scaled = font.as_scaled(PxScale::from(size_px));
    let baseline = y + scaled.ascent();
    let mut pen = x;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            pen += scaled.kern(p, id);
        }
        let glyph = id.with_scale_and_position(PxScale::from(size_px), ab_glyph::point(pen, baseline));
        pen += scaled.h_advance(id);
        previous = Some(id);
        let Some(outlined) = font.outline_glyph(glyph) else { continue };
        let bounds = outlined.px_bounds();
        outlined.draw(|gx, gy, coverage| {
            let px = bounds.min.x as i64 + i64::from(gx);
            let py = bounds.min.y as i64 + i64::from(gy);
            if let (Ok(px), Ok(py)) = (u32::try_from(px), u32::try_from(py))
                && px < image.width()
                && py < image.height()
            {
                let alpha = coverage.clamp(0.0, 1.0) * f32::from(color[3]) / 255.0;
                blend_pixel(image.get_pixel_mut(px, py), color, alpha);
            }
        });
    }
}

/// Darkens (or tints) a rectangle: `color` blended over it with `alpha`.
pub fn shade_rect(image: &mut RgbaImage, x: u32, y: u32, width: u32, height: u32, color: [u8; 4], alpha: f32) {
    let x_end = x.saturating_add(width).min(image.width());
    let y_end = y.saturating_add(height).min(image.height());
    for py in y.min(y_end)..y_end {
        for px in x.min(x_end)..x_end {
            blend_pixel(image.get_pixel_mut(px, py), color, alpha);
        }
    }
}

/// `color` over `pixel` with coverage `alpha`; the result is at least as opaque as either.
fn blend_pixel(pixel: &mut Rgba<u8>, color: [u8; 4], alpha: f32) {
    let mix = |under: u8, over: u8| (f32::from(under) + (f32::from(over) - f32::from(under)) * alpha).round() as u8;
    let [r, g, b, a] = pixel.0;
    let covered = (alpha * 255.0).round() as u8;
    // Over a transparent pixel the text colour shows as it is, not mixed with invisible black.
    let (r, g, b) =
        if a == 0 { (color[0], color[1], color[2]) } else { (mix(r, color[0]), mix(g, color[1]), mix(b, color[2])) };
    *pixel = Rgba([r, g, b, a.max(covered)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_face_parses_and_measures() {
        assert!(face().is_some(), "Ubuntu Light from epaint_default_fonts");
        let one = text_width("m", 12.0);
        assert!(one > 4.0 && one < 14.0, "an 'm' at 12 px is a few pixels wide: {one}");
        assert!(text_width("mm", 12.0) > one * 1.9);
        assert!(line_height(12.0) >= 12.0);
    }

    #[test]
    fn long_text_is_shortened_with_an_ellipsis() {
        let fitted = fit_text("a_very_long_model_name_indeed.md2", 12.0, 60.0);
        assert!(fitted.ends_with('…'), "{fitted}");
        assert!(text_width(&fitted, 12.0) <= 60.0);
        assert_eq!(fit_text("gate.MD2", 12.0, 200.0), "gate.MD2");
    }

    #[test]
    fn wrapping_keeps_every_word_and_each_line_fits() {
        let text = "tpw: mesh table offset at 0x20: out of bounds (needed 64, have 12)";
        let lines = wrap_text(text, 11.0, 80.0);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines.iter().all(|l| text_width(l, 11.0) <= 80.0), "{lines:?}");
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn drawn_text_covers_pixels_in_its_box_only() {
        let mut image = RgbaImage::from_pixel(80, 20, Rgba([0, 0, 0, 255]));
        draw_text(&mut image, 2.0, 2.0, 14.0, [255, 255, 255, 255], "Hi");
        let lit: Vec<(u32, u32)> =
            image.enumerate_pixels().filter(|(_, _, p)| p.0[0] > 128).map(|(x, y, _)| (x, y)).collect();
        assert!(lit.len() > 10, "the glyphs cover pixels");
        let width = text_width("Hi", 14.0).ceil() as u32 + 3;
        assert!(lit.iter().all(|&(x, y)| x < width && y < 18), "ink stays near the pen: {lit:?}");
    }
}
