//! Animated pictures: frames streamed into an animated GIF (the `image` crate's encoder) or an
//! APNG (the `png` crate's animation support; `image` writes only still PNGs), and the timing
//! and camera orbit of turntables.
//!
//! GIF has 256 colours per frame and one-bit transparency, and counts delays in hundredths
//! of a second; APNG keeps full colour and alpha and takes the delay as a fraction.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{Context, Result, bail};
use image::RgbaImage;

use super::Camera;
use crate::scene::Aabb;

/// NeuQuant's sampling step for GIF palettes: 10 is its documented good-and-fast choice
/// (1, the slowest, takes seconds per large frame for no visible gain on renders).
const GIF_QUANTIZER_SPEED: i32 = 10;

/// Browsers show GIF delays under 2 hundredths as 10; the shortest honest delay is 2.
const GIF_MIN_DELAY_CS: u32 = 2;

/// How long one turn takes when no clip sets the pace.
pub const DEFAULT_TURN_SECONDS: f32 = 3.0;

/// Which animated format a file name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimatedFormat {
    Gif,
    Apng,
}

impl AnimatedFormat {
    /// `.gif` or `.png` (any case); anything else is not an animated format.
    pub fn for_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_string_lossy().to_lowercase();
        match ext.as_str() {
            "gif" => Some(Self::Gif),
            "png" | "apng" => Some(Self::Apng),
            _ => None,
        }
    }
}

/// The time one frame is shown, in milliseconds (at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameDelay {
    pub ms: u32,
}

impl FrameDelay {
    /// `seconds` rounded to whole milliseconds; a non-finite or non-positive time gives 1 ms.
    pub fn from_seconds(seconds: f32) -> Self {
        let ms = if seconds.is_finite() && seconds > 0.0 { (seconds * 1000.0).round() as u32 } else { 1 };
        Self { ms: ms.clamp(1, u32::from(u16::MAX)) }
    }

    /// The delay in GIF's hundredths of a second (rounded, at least `GIF_MIN_DELAY_CS`, 2).
    pub fn gif_centiseconds(self) -> u32 {
        ((self.ms + 5) / 10).max(GIF_MIN_DELAY_CS)
    }
}

/// Writes frames one at a time to an animated GIF or APNG that loops forever.
pub struct AnimationWriter {
    inner: Writer,
    size: [u32; 2],
    frames_left: u32,
}

enum Writer {
    Gif(Box<image::codecs::gif::GifEncoder<BufWriter<File>>>, FrameDelay),
    Apng(Box<png::Writer<BufWriter<File>>>),
}

impl AnimationWriter {
    /// Creates `path` for `frame_count` frames of `size` pixels, each shown for `delay`.
    pub fn create(
        path: &Path,
        format: AnimatedFormat,
        size: [u32; 2],
        frame_count: u32,
        delay: FrameDelay,
    ) -> Result<Self> {
        if frame_count == 0 {
            bail!("an animation needs at least one frame");
        }
        let file = BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?);
        let inner = match format {
            AnimatedFormat::Gif => {
                let mut encoder = image::codecs::gif::GifEncoder::new_with_speed(file, GIF_QUANTIZER_SPEED);
                encoder.set_repeat(image::codecs::gif::Repeat::Infinite).context("writing the GIF header")?;
                Writer::Gif(Box::new(encoder), delay)
            }
            AnimatedFormat::Apng => {
                let mut encoder = png::Encoder::new(file, size[0], size[1]);
                encoder.set_color(png::ColorType::Rgba);
                encoder.set_depth(png::BitDepth::Eight);
                encoder.set_animated(frame_count, 0).context("starting the APNG")?;
                // Each frame replaces the canvas whole, so transparent pixels stay transparent
                // instead of showing the frame before.
                encoder.set_blend_op(png::BlendOp::Source).context("starting the APNG")?;
                encoder.set_dispose_op(png::DisposeOp::None).context("starting the APNG")?;
                let delay_ms = u16::try_from(delay.ms).unwrap_or(u16::MAX);
                encoder.set_frame_delay(delay_ms, 1000).context("starting the APNG")?;
                let writer = encoder.write_header().context("writing the APNG header")?;
                Writer::Apng(Box::new(writer))
            }
        };
        Ok(Self { inner, size, frames_left: frame_count })
    }

    /// Appends one frame; it must have the size given to [`AnimationWriter::create`].
    pub fn push(&mut self, frame: &RgbaImage) -> Result<()> {
        if frame.dimensions() != (self.size[0], self.size[1]) {
            bail!("frame is {}x{}, the animation {}x{}", frame.width(), frame.height(), self.size[0], self.size[1]);
        }
        if self.frames_left == 0 {
            bail!("more frames than the animation was created for");
        }
        self.frames_left -= 1;
        match &mut self.inner {
            Writer::Gif(encoder, delay) => {
                let delay = image::Delay::from_numer_denom_ms(delay.gif_centiseconds() * 10, 1);
                encoder
                    .encode_frame(image::Frame::from_parts(frame.clone(), 0, 0, delay))
                    .context("writing a GIF frame")?;
            }
            Writer::Apng(writer) => writer.write_image_data(frame.as_raw()).context("writing an APNG frame")?,
        }
        Ok(())
    }

    /// Ends the file; every promised frame must have been pushed.
    pub fn finish(self) -> Result<()> {
        if self.frames_left != 0 {
            bail!("{} frames missing from the animation", self.frames_left);
        }
        match self.inner {
            Writer::Gif(encoder, _) => drop(encoder),
            Writer::Apng(writer) => writer.finish().context("finishing the APNG")?,
        }
        Ok(())
    }
}

/// One camera per turntable step: the same target and pitch, the yaw going once around from
/// `camera.yaw_deg` in `steps` equal steps. The distance is scaled from the framing at the
/// first yaw to the widest framing of any step (a zoom is kept), so the model stays whole in
/// each frame without the camera bobbing in and out.
pub fn turntable_cameras(bounds: &Aabb, camera: &Camera, steps: u32, aspect: f32) -> Vec<Camera> {
    let steps = steps.max(1);
    let yaws: Vec<f32> = (0..steps).map(|i| camera.yaw_deg + 360.0 * i as f32 / steps as f32).collect();
    let framing = |yaw: f32| Camera::framing(bounds, yaw, camera.pitch_deg, aspect).distance;
    let first = framing(camera.yaw_deg);
    let widest = yaws.iter().map(|&yaw| framing(yaw)).fold(first, f32::max);
    let distance = if first > 0.0 { camera.distance * widest / first } else { camera.distance };
    yaws.into_iter().map(|yaw_deg| Camera { yaw_deg, distance, ..*camera }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(AnimatedFormat::for_path(Path::new("spin.GIF")), Some(AnimatedFormat::Gif));
        assert_eq!(AnimatedFormat::for_path(Path::new("spin.png")), Some(AnimatedFormat::Apng));
        assert_eq!(AnimatedFormat::for_path(Path::new("spin.jpg")), None);
        assert_eq!(AnimatedFormat::for_path(Path::new("spin")), None);
    }

    #[test]
    fn delays_round_to_each_format_units() {
        // 15 frames per second: 66.7 ms, 7 hundredths in a GIF.
        let delay = FrameDelay::from_seconds(1.0 / 15.0);
        assert_eq!(delay.ms, 67);
        assert_eq!(delay.gif_centiseconds(), 7);
        // A millisecond step (M2 clip units) is shown as GIF's shortest honest delay.
        assert_eq!(FrameDelay::from_seconds(0.001).gif_centiseconds(), 2);
        assert_eq!(FrameDelay::from_seconds(f32::NAN).ms, 1);
    }

    #[test]
    fn turntable_goes_once_around_at_one_distance() {
        let bounds = Aabb { min: Vec3::new(-4.0, 0.0, -1.0), max: Vec3::new(4.0, 2.0, 1.0) };
        let start = Camera::framing(&bounds, 30.0, 20.0, 1.0);
        let cameras = turntable_cameras(&bounds, &start, 12, 1.0);
        assert_eq!(cameras.len(), 12);
        assert!((cameras[0].yaw_deg - 30.0).abs() < 1e-4);
        assert!((cameras[1].yaw_deg - 60.0).abs() < 1e-4, "30 degrees a step");
        assert!((cameras[11].yaw_deg - 360.0).abs() < 1e-3, "the last step stops short of the first");
        let widest = (0..12).map(|i| Camera::framing(&bounds, 30.0 + 30.0 * i as f32, 20.0, 1.0).distance);
        let widest = widest.fold(0.0, f32::max);
        assert!(widest >= start.distance);
        assert!(cameras.iter().all(|c| (c.distance - widest).abs() < 1e-3 && c.target == start.target));
        // A zoomed camera keeps its zoom.
        let zoomed = Camera { distance: start.distance / 2.0, ..start };
        let closer = turntable_cameras(&bounds, &zoomed, 12, 1.0);
        assert!((closer[0].distance - widest / 2.0).abs() < 1e-3);
    }
}
