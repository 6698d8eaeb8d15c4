pub mod cvt;
pub mod fp;
pub mod int;
pub mod lanes;
pub mod printf;
pub mod softfloat;
