pub mod softfloat;
