//! A Quake II `.md2` encoder for fixtures: writes the header, skins, texture coordinates,
//! triangles, frames and an OpenGL command list (one fan per triangle) in id's order.

/// One frame: packed vertices `[x, y, z, normal index]` with their scale and translate.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameSpec {
    pub name: String,
    pub scale: [f32; 3],
    pub translate: [f32; 3],
    pub vertices: Vec<[u8; 4]>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Md2Spec {
    pub skin_width: i32,
    pub skin_height: i32,
    pub skins: Vec<String>,
    pub st: Vec<[i16; 2]>,
    /// (vertex indices, st indices), stored clockwise as the game expects.
    pub triangles: Vec<([i16; 3], [i16; 3])>,
    pub frames: Vec<FrameSpec>,
}

impl Md2Spec {
    pub fn to_bytes(&self) -> Vec<u8> {
        let num_xyz = self.frames.first().map_or(0, |f| f.vertices.len());
        let frame_size = 40 + 4 * num_xyz;
        let mut skins = Vec::new();
        for name in &self.skins {
            let mut field = [0u8; 64];
            for (slot, b) in field.iter_mut().zip(name.bytes().take(63)) {
                *slot = b;
            }
            skins.extend(field);
        }
        let st: Vec<u8> =
            self.st.iter().flat_map(|[s, t]| s.to_le_bytes().into_iter().chain(t.to_le_bytes())).collect();
        let tris: Vec<u8> =
            self.triangles.iter().flat_map(|(v, t)| v.iter().chain(t.iter()).flat_map(|i| i.to_le_bytes())).collect();
        let mut frames = Vec::new();
        for f in &self.frames {
            frames.extend(f.scale.iter().chain(&f.translate).flat_map(|x| x.to_le_bytes()));
            let mut name = [0u8; 16];
            for (slot, b) in name.iter_mut().zip(f.name.bytes().take(15)) {
                *slot = b;
            }
            frames.extend(name);
            frames.extend(f.vertices.iter().flatten());
        }
        let mut gl: Vec<i32> = Vec::new();
        let size = [self.skin_width.max(1) as f32, self.skin_height.max(1) as f32];
        for (v, t) in &self.triangles {
            gl.push(-3);
            for (&vertex, &st) in v.iter().zip(t) {
                let [s, tt] = self.st.get(st as usize).copied().unwrap_or([0, 0]);
                gl.push((f32::from(s) / size[0]).to_bits() as i32);
                gl.push((f32::from(tt) / size[1]).to_bits() as i32);
                gl.push(i32::from(vertex));
            }
        }
        gl.push(0);
        let gl: Vec<u8> = gl.iter().flat_map(|w| w.to_le_bytes()).collect();

        let ofs_skins = 68;
        let ofs_st = ofs_skins + skins.len();
        let ofs_tris = ofs_st + st.len();
        let ofs_frames = ofs_tris + tris.len();
        let ofs_glcmds = ofs_frames + frames.len();
        let ofs_end = ofs_glcmds + gl.len();
        let header = [
            8,
            self.skin_width,
            self.skin_height,
            frame_size as i32,
            self.skins.len() as i32,
            num_xyz as i32,
            self.st.len() as i32,
            self.triangles.len() as i32,
            (gl.len() / 4) as i32,
            self.frames.len() as i32,
            ofs_skins as i32,
            ofs_st as i32,
            ofs_tris as i32,
            ofs_frames as i32,
            ofs_glcmds as i32,
            ofs_end as i32,
        ];
        let mut out = b"IDP2".to_vec();
        out.extend(header.iter().flat_map(|h| h.to_le_bytes()));
        for part in [skins, st, tris, frames, gl] {
            out.extend(part);
        }
        out
    }
}
