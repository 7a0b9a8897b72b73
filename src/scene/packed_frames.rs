//! Quantised whole-mesh frames (Quake II) kept as the file stores them, and the frame table
//! every clip of a file shares.

use glam::Vec3;

/// The frames of one file, shared by every clip that plays them: per frame its time (its
/// index), scale and translate (scene axes) and name. Built once per decode, so clips allocate
/// nothing per frame.
#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    pub times: Vec<f32>,
    pub transforms: Vec<(Vec3, Vec3)>,
    /// Frame `f` is named `name_text[name_ranges[f]]`; empty when the file names no frames.
    pub name_text: String,
    pub name_ranges: Vec<(u32, u32)>,
}

impl FrameTable {
    /// The name of table frame `frame`, if the file names its frames.
    pub fn name(&self, frame: usize) -> Option<&str> {
        let &(start, end) = self.name_ranges.get(frame)?;
        self.name_text.get(start as usize..end as usize)
    }
}

/// A file's bytes, shared between whoever read them and the scene views that keep them (Quake
/// II frames). A `Vec` inside, so a file is read straight into it: `std::fs::read` fills a
/// buffer's spare capacity without zeroing it first, where an `Arc<[u8]>` would have to be
/// zeroed (or copied into) before a safe read.
pub type SharedBytes = std::sync::Arc<Vec<u8>>;

/// Quantised whole-mesh frames: source vertex `v` of frame `f` sits at
/// `scale[f] * (p[lanes[0]], p[lanes[1]], p[lanes[2]]) + translate[f]` where `p` is its packed
/// record, and its normal is `normal_table[p[3]]` (scene axes). The records stay where the file
/// keeps them, 4 bytes per vertex, in one buffer every clip shares (for Quake II the file's own
/// bytes, checked at decode): table frame `f` starts at byte `first + f × frame_stride`. A clip
/// plays table frames `frames`, a view into the shared [`FrameTable`]. Only the two frames being
/// blended are ever unpacked.
#[derive(Debug, Clone, Default)]
pub struct PackedFrames {
    pub mesh: usize,
    pub table: std::sync::Arc<FrameTable>,
    /// The table frames this clip plays; the clip's frame `i` is table frame `frames.start + i`.
    pub frames: std::ops::Range<usize>,
    /// The bytes holding the packed records (shared by every clip of the file).
    pub records: SharedBytes,
    /// Byte offset of table frame 0's records in `records`.
    pub first: usize,
    /// Bytes from one frame's records to the next.
    pub frame_stride: usize,
    pub vertex_count: usize,
    /// Which packed byte (0 to 3) feeds scene x, y and z (the axis mapping folded into the
    /// layout).
    pub lanes: [u8; 3],
    /// The table that normal indices point into (for Quake II its 162 normals, built once per
    /// process), borrowed for the process, so a clip's copy counts no reference.
    pub normal_table: &'static [Vec3],
    /// Whether a loop blends the last frame back into the first over one more frame, as the Quake
    /// II engine plays a looping animation (its frames are evenly spaced, one unit apart): a clip
    /// of N frames loops in N frames, not N − 1. Only a looping pose plays the blend
    /// ([`anim::Pose::looping`](super::anim::Pose::looping)); otherwise past the end holds the last
    /// frame.
    pub wraps: bool,
}

impl PackedFrames {
    /// The clip's key times, one per frame.
    pub fn times(&self) -> &[f32] {
        self.table.times.get(self.frames.clone()).unwrap_or(&[])
    }

    /// The table frame behind the clip's frame `index`, if the clip has it.
    pub fn table_frame(&self, index: usize) -> Option<usize> {
        let frame = self.frames.start.checked_add(index)?;
        (frame < self.frames.end).then_some(frame)
    }

    /// Frame `index` of the clip: its scale, translate and packed records.
    pub fn frame(&self, index: usize) -> Option<(Vec3, Vec3, &[[u8; 4]])> {
        let frame = self.table_frame(index)?;
        let (scale, translate) = *self.table.transforms.get(frame)?;
        Some((scale, translate, self.records_at(index)?))
    }

    /// The packed records of frame `index` of the clip.
    pub fn records_at(&self, index: usize) -> Option<&[[u8; 4]]> {
        let start = self.first.checked_add(self.table_frame(index)?.checked_mul(self.frame_stride)?)?;
        let bytes = self.records.get(start..start.checked_add(self.vertex_count.checked_mul(4)?)?)?;
        Some(bytes.as_chunks::<4>().0)
    }

    /// Whether the file names its frames.
    pub fn has_names(&self) -> bool {
        !self.table.name_ranges.is_empty()
    }

    /// The name of frame `index` of the clip, if the file names its frames.
    pub fn name(&self, index: usize) -> Option<&str> {
        self.table.name(self.table_frame(index)?)
    }

    /// Scene-space position of packed record `p` under `scale` and `translate`.
    #[inline]
    pub fn position(&self, scale: Vec3, translate: Vec3, p: [u8; 4]) -> Vec3 {
        // A lane names one of the record's 4 bytes: taken modulo 4, each read is in bounds with
        // no check per vertex (this runs for every vertex of two frames on every animated frame).
        let [x, y, z] = self.lanes.map(|lane| usize::from(lane % 4));
        let byte = |at: usize| f32::from(p.get(at).copied().unwrap_or(0));
        Vec3::new(byte(x), byte(y), byte(z)) * scale + translate
    }

    /// Scene-space normal of packed record `p` (up when the index is past the table).
    pub fn normal(&self, p: [u8; 4]) -> Vec3 {
        self.normal_table.get(usize::from(p[3])).copied().unwrap_or(Vec3::Y)
    }

    /// Every source position of frame `index`, unpacked.
    pub fn unpack(&self, index: usize) -> Vec<Vec3> {
        self.frame(index)
            .map(|(s, t, records)| records.iter().map(|&p| self.position(s, t, p)).collect())
            .unwrap_or_default()
    }
}
